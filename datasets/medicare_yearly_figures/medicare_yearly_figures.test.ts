import { parseSync } from '@swc/core';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { medicareYearlyFigures } from './dataset.js';
import { loadedYears, yearFigures } from './queries.js';

const seeds = [2025, 2026].map((y) => join(REPO_ROOT, 'seeds', medicareYearlyFigures.id, `${y}.yaml`));

describe('medicare_yearly_figures (curated)', () => {
  it('detects a document by its kind, and versions a release by its latest curated date', async () => {
    const samples = await Promise.all(seeds.map(async (s) => sampleFile(await toSourceFile(s))));
    expect(samples.every((s) => medicareYearlyFigures.detect(s))).toBe(true);
    expect(medicareYearlyFigures.version(samples)).toEqual({ label: '2026-12-06', effective_date: '2026-12-06' });
  });

  it('reads every figure and code of the seeds, each with its citation and its document\'s year', async () => {
    const { rows, rejects } = await parseAll(medicareYearlyFigures, seeds);
    expect(rejects).toEqual([]);
    const figures = rows.filter((r) => 'figure' in r) as { year: number; figure: string; value: string; citation: { url: string } }[];
    expect(figures.filter((f) => f.year === 2026).map((f) => [f.figure, f.value])).toEqual([
      ['conversion_factor_qpp', '33.5675'],
      ['conversion_factor_non_qpp', '33.4009'],
      ['part_b_deductible', '283'],
      ['inpatient_deductible', '1736'],
      ['part_b_coinsurance_percent', '20'],
      ['sequestration_percent', '2'],
      ['colorectal_pt_coinsurance_percent', '15'],
    ]);
    // 2025: no conversion factor here (the 2025 RVU release prints its one factor).
    expect(figures.filter((f) => f.year === 2025).map((f) => f.figure)).not.toContain('conversion_factor_qpp');
    expect(rows.every((r) => (r as { citation?: { url?: string } }).citation?.url?.startsWith('https://'))).toBe(true);
  });

  it('refuses a figure without a citation, with a value that is not an exact decimal, or of another year, naming its line', async () => {
    const p = await writeTempFile(
      '2027.yaml',
      [
        'kind: medicare_yearly_figures',
        'curated: 2026-12-06',
        'year: 2027',
        'figures:',
        '  - {figure: part_b_deductible, value: "300"}',
        '  - {figure: inpatient_deductible, value: "1.7e3", citation: {title: CMS fact sheet, url: "https://www.cms.gov/", retrieved: 2026-12-06}}',
        '  - {figure: sequestration_percent, year: 2026, value: "2", citation: {title: BCA 2011, url: "https://www.congress.gov/", retrieved: 2026-12-06}}',
        '',
      ].join('\n'),
    );
    const { rows, rejects } = await parseAll(medicareYearlyFigures, p);
    expect(rows).toEqual([]);
    expect(rejects.map((r) => [r.line, r.issues[0]!.loc.at(-1)])).toEqual([
      [5, 'citation'],
      [6, 'value'],
      [7, 'year'],
    ]);
    expect(rejects[0]!.issues[0]!.msg).toMatch(/every figure and code needs a citation/);
  });
});

describe('medicare_yearly_figures queries', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: medicareYearlyFigures, files: seeds }]);
  });
  afterAll(() => snap?.close());

  it('answers a year\'s figures exactly, with their citation and the version, and its code lists', async () => {
    const y = (await yearFigures(snap, 2026))!;
    expect(y.version).toBe('2026-12-06');
    expect(y.figure('conversion_factor_qpp')!.value.toString()).toBe('33.5675');
    expect(y.figure('part_b_deductible')!.citation.title).toMatch(/2026 Medicare Parts A & B Premiums and Deductibles/);
    expect(y.codes('preventive_no_cost_sharing').has('G0438')).toBe(true);
    expect((await yearFigures(snap, 2025))!.figure('conversion_factor_qpp')).toBeUndefined();
    expect(await yearFigures(snap, 2031)).toBeNull();
    expect(await loadedYears(snap)).toEqual([2025, 2026]);
  });
});

/**
 * The yearly figures live in one home, this dataset's documents: a conversion factor, a deductible
 * or a preventive code list written as a constant in the code would be a second one, silently
 * stale the next January. This scan fails on a literal equal to a seeded figure of four or more
 * significant digits (33.5675, 1736), or on a literal list holding three of a year's listed codes.
 */

const SCANNED = ['server', 'datasets', 'cli', 'lib'];

/** The TypeScript sources (not tests) below `dir`. */
async function sources(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => join(dir, f));
}

type Node = { type?: string; value?: unknown; [k: string]: unknown };

function literals(n: unknown, out: { values: string[]; lists: string[][] }): void {
  if (!n || typeof n !== 'object') return;
  if (Array.isArray(n)) return n.forEach((x) => literals(x, out));
  const node = n as Node;
  if (node.type === 'StringLiteral' || node.type === 'NumericLiteral') out.values.push(String(node.value));
  if (node.type === 'ArrayExpression') out.lists.push((node.elements as { expression?: Node }[]).map((e) => (e?.expression?.type === 'StringLiteral' ? String(e.expression.value) : '')).filter(Boolean));
  for (const v of Object.values(node)) if (v && typeof v === 'object') literals(v, out);
}

describe('medicare_yearly_figures has one home', () => {
  it('finds no seeded figure or code list written as a constant in the code', async () => {
    const { rows } = await parseAll(medicareYearlyFigures, seeds);
    const figures = new Set(rows.filter((r) => 'figure' in r).map((r) => (r as { value: string }).value).filter((v) => v.replace(/\D/g, '').replace(/^0+/, '').length >= 4));
    const codes = new Set(rows.filter((r) => 'list' in r).map((r) => (r as { code: string }).code));
    expect(figures.size).toBeGreaterThan(2);
    const offenders: string[] = [];
    const files = (await Promise.all(SCANNED.map((d) => sources(join(REPO_ROOT, d))))).flat().filter((f) => !f.includes(join('datasets', medicareYearlyFigures.id)));
    for (const f of files) {
      const found = { values: [] as string[], lists: [] as string[][] };
      literals(parseSync(await readFile(f, 'utf8'), { syntax: 'typescript' }), found);
      for (const v of found.values) if (figures.has(v)) offenders.push(`${relative(REPO_ROOT, f)}: ${v}`);
      for (const l of found.lists) if (l.filter((c) => codes.has(c)).length >= 3) offenders.push(`${relative(REPO_ROOT, f)}: a list of ${l.filter((c) => codes.has(c)).join(', ')}`);
    }
    expect(offenders).toEqual([]);
  });
});
