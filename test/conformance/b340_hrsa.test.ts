import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { manufacturer340b } from '../../datasets/manufacturer_340b/dataset.js';
import { parseTables, REPO_ROOT } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// shared/data/340b (SOURCE.md): HRSA's own "340B Rebate Model Pilot Program" page, clipped
// 2026-01-03: the pause notice and the table of approved plans (Manufacturer | Selected Drug Name |
// Contact email | IT platform), several drugs of one plan separated by "; ".
const PAGE = '340b/2026-01-03-340b-rebate-model-pilot-program-hrsa.md';
const present = requireShared(PAGE);
const SEEDS = join(REPO_ROOT, 'seeds/manufacturer_340b');

/** HRSA's table of approved plans: labeler as HRSA names it -> the plan's drugs, in HRSA's order. */
function hrsaPlans(markdown: string): Map<string, string[]> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Manufacturer 340B rebate model plan summaries'));
  if (!section) throw new Error('no "Manufacturer 340B rebate model plan summaries" section');
  // The first table of the section (the approved claim data fields follow in a second one).
  const lines = section.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  const rows = lines.slice(start, end).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
  const [header, rule, ...body] = rows;
  expect(header!.slice(0, 2)).toEqual(['Manufacturer', 'Selected Drug Name']);
  expect(rule!.every((c) => /^-+$/.test(c))).toBe(true);
  return new Map(body.map((r) => [r[0]!, r[1]!.split(';').map((d) => d.trim())]));
}

describe.skipIf(!present)("manufacturer_340b rebate-pilot drugs against HRSA's pilot page (shared/data/340b)", () => {
  let page: string;
  let drugs: Record<string, unknown>[];
  let pilot: Record<string, unknown>[];
  beforeAll(async () => {
    page = readFileSync(join(sharedDataDir(), PAGE), 'utf8');
    drugs = [];
    pilot = [];
    for (const f of readdirSync(SEEDS).filter((n) => n.endsWith('.yaml'))) {
      const { rows, rejects } = await parseTables(manufacturer340b, join(SEEDS, f));
      expect(rejects, f).toEqual([]);
      drugs.push(...(rows.rebate_drugs ?? []));
      pilot.push(...(rows.rebate_pilot ?? []));
    }
  });

  it("holds exactly HRSA's approved plans: each labeler with its drugs as HRSA prints them", () => {
    const hrsa = hrsaPlans(page);
    expect(hrsa.size).toBe(10);
    expect(hrsa.get('Novartis Pharmaceuticals Corporation')).toEqual(['ENTRESTO']);
    const seeded = new Map<string, string[]>();
    for (const d of drugs) seeded.set(String(d.labeler_name), [...(seeded.get(String(d.labeler_name)) ?? []), String(d.drug)]);
    const sorted = (m: Map<string, string[]>) => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]));
    expect(sorted(seeded)).toEqual(sorted(hrsa));
  });

  it("cites HRSA's own page for every plan drug and for the pause, which starts at noon on 2025-12-31", () => {
    const url = /^url: (\S+)$/m.exec(page)![1];
    expect(url).toBe('https://www.hrsa.gov/opa/340b-model-pilot-program');
    expect(new Set(drugs.map((d) => (d.citation as { url: string }).url))).toEqual(new Set([url]));
    expect(page).toContain('As of noon on December 31, 2025, in accordance with the December 29, 2025, U.S. District Court for the District of Maine order in *American Hospital Association et al. v. Kennedy et al.*, No. 25-cv-600 (D. Me.)');
    const paused = pilot.filter((r) => r.status === 'paused');
    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatchObject({ date: '2025-12-31', time: '12:00', citation: { url } });
  });
});
