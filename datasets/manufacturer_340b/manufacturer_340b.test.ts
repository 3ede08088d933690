import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseItems, parseTables, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { manufacturer340b } from './dataset.js';

const SEEDS = join(REPO_ROOT, 'seeds/manufacturer_340b');
/** A manufacturer document whose rows break each rule once, beside one good policy. */
const UGLY = join(REPO_ROOT, 'test/fixtures/manufacturer_340b/acme_pharma.yaml');

const read = (path: string) => parseTables(manufacturer340b, path);

describe('manufacturer_340b parser (seed YAML documents)', () => {
  it('detects a manufacturer document and versions it by its curated date', async () => {
    expect(await detectFile(manufacturer340b, join(SEEDS, 'abbvie.yaml'))).toEqual({ detected: true, version: { label: '2026-11-27', effective_date: '2026-11-27' } });
  });

  it("gives each section row the manufacturer id and fills omitted fields (null, [], the designation default)", async () => {
    const { rows, rejects } = await read(join(SEEDS, 'abbvie.yaml'));
    expect(rejects).toEqual([]);
    expect(rows.policies!.map((p) => [p.manufacturer_id, p.policy_id, p.max_distance_miles, p.designation_requires_no_in_house_pharmacy])).toEqual([
      ['abbvie', '2022-02-01', null, true],
      ['abbvie', '2023-04-17-hospitals', 40, true],
      ['abbvie', '2025-01-01-grantees', null, false],
    ]);
    expect(rows.state_exemptions!.map((e) => [e.state, e.entity_types])).toEqual([['AR', ['hospitals']], ['MN', ['hospitals']], ['MO', []]]);
  });

  it('reads the state laws and the rebate pilot documents, a null effective date kept as null', async () => {
    const laws = (await read(join(SEEDS, 'state_laws.yaml'))).rows.state_laws!;
    expect(laws.map((l) => [l.state, l.effective_date, l.enjoined_date])).toEqual([
      ['AR', '2021-07-26', null],
      ['LA', '2023-08-01', null],
      ['WV', '2024-06-06', '2024-12-17'],
      ['MD', '2024-07-01', null],
      ['MO', '2024-08-28', null],
      ['MS', '2024-07-01', null],
      ['MN', null, null],
      ['KS', null, null],
    ]);
    // Every dated law dates itself with a cited history event on its effective date.
    for (const l of laws.filter((x) => x.effective_date !== null)) expect((l.history as { date: string }[]).some((h) => h.date === l.effective_date), String(l.state)).toBe(true);
    const pilot = (await read(join(SEEDS, 'rebate_pilot.yaml'))).rows.rebate_pilot!;
    expect(pilot.map((r) => [r.date, r.time, r.status])).toEqual([
      ['2025-08-01', null, 'announced'],
      ['2025-10-30', null, 'approved'],
      ['2025-12-29', null, 'enjoined'],
      ['2025-12-31', '12:00', 'paused'],
    ]);
    expect(pilot.at(-1)!.citation).toEqual({ title: '340B Rebate Model Pilot Program (HRSA Office of Pharmacy Affairs)', url: 'https://www.hrsa.gov/opa/340b-model-pilot-program', published: null });
  });

  it("holds HRSA's 10 approved rebate-pilot plans, ENTRESTO included, each drug citing HRSA's page", async () => {
    const drugs: Record<string, unknown>[] = [];
    for (const f of readdirSync(SEEDS).filter((n) => n.endsWith('.yaml')).sort()) {
      const { rows, rejects } = await read(join(SEEDS, f));
      expect(rejects, f).toEqual([]);
      drugs.push(...(rows.rebate_drugs ?? []));
    }
    const plans = new Map<string, string[]>();
    for (const d of drugs) plans.set(String(d.labeler_name), [...(plans.get(String(d.labeler_name)) ?? []), String(d.drug)]);
    expect(plans.size).toBe(10);
    expect(plans.get('Novartis Pharmaceuticals Corporation')).toEqual(['ENTRESTO']);
    expect(plans.get('Novo Nordisk Inc.')).toEqual(['NOVOLOG', 'NOVOLOG FLEXPEN', 'NOVOLOG PENFILL', 'FIASP', 'FIASP FLEXTOUCH', 'FIASP PENFILL']);
    expect(new Set(drugs.map((d) => (d.citation as { url: string }).url))).toEqual(new Set(['https://www.hrsa.gov/opa/340b-model-pilot-program']));
    expect(drugs.find((d) => d.drug === 'ENTRESTO')).toMatchObject({ manufacturer_id: 'novartis', effective_date: null });
  });
});

describe('manufacturer_340b bad input', () => {
  it('rejects a row without a citation, a bad rule, another manufacturer id and a citation without its date, by line', async () => {
    const { rows, rejects } = await read(UGLY);
    expect(rows.policies!.map((p) => p.policy_id)).toEqual(['good']);
    expect(rejects.map((r) => [r.line, r.table, r.issues!.map((i) => `${i.loc.join('.')}: ${i.msg}`)])).toEqual([
      [17, 'policies', ['policies.1.citation: every curated row needs a citation {title, url, published}']],
      [22, 'policies', [expect.stringMatching(/^policies\.2\.contract_pharmacy_rule: /)]],
      [29, 'carve_outs', ['carve_outs.0.manufacturer_id: rows of this file belong to acme_pharma; omit manufacturer_id']],
      [35, 'carve_outs', [expect.stringMatching(/^carve_outs\.1\.citation\.published: /)]],
    ]);
  });

  it('throws on an unknown section and on a document without a curated date', async () => {
    await expect(parseItems(manufacturer340b, await writeTempFile('x.yaml', 'kind: state_laws\ncurated: 2026-01-01\nstate_laws: []\nrates: []\n'))).rejects.toThrow(/unknown section `rates`/);
    await expect(parseItems(manufacturer340b, await writeTempFile('x.yaml', 'kind: rebate_pilot\nrebate_pilot: []\n'))).rejects.toThrow(/`curated: YYYY-MM-DD` is required/);
  });
});
