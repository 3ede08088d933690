import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, parseItems, parseTables, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { payers } from './dataset.js';

const SEEDS = join(REPO_ROOT, 'seeds/payers');
/** A payer document whose filing and appeal rows break each rule once, beside one good row. */
const UGLY = join(REPO_ROOT, 'test/fixtures/payers/acme_health.yaml');

const read = (path: string) => parseTables(payers, path);

describe('payers parser (seed YAML documents)', () => {
  it('detects a payer document and versions it by its curated date', async () => {
    expect(await detectFile(payers, join(SEEDS, 'aetna.yaml'))).toEqual({ detected: true, version: { label: '2026-11-22', effective_date: '2026-11-22' } });
  });

  it('reads the identity row and gives each section row the payer slug, omitted fields as null, [] or {}', async () => {
    const { rows, rejects } = await read(join(SEEDS, 'aetna.yaml'));
    expect(rejects).toEqual([]);
    expect(rows.payers).toEqual([expect.objectContaining({ slug: 'aetna', name: 'Aetna', payer_type: 'commercial', edi_payer_ids: { default: '60054' }, parent_slug: null, knowledge_depth: 'identity' })]);
    expect(rows.appeal_levels).toEqual([
      expect.objectContaining({ payer_slug: 'aetna', plan_type: 'group', appeal_level: 1, deadline_days: 180, starts_from: 'notice_receipt', amount_in_controversy: null, state_specific_rules: {} }),
    ]);
  });

  it('reads every table of the Medicare FFS document and the service categories list', async () => {
    const { rows, rejects } = await read(join(SEEDS, 'medicare_ffs.yaml'));
    expect(rejects).toEqual([]);
    expect(Object.keys(rows).sort()).toEqual(['appeal_levels', 'denial_patterns', 'filing_rules', 'payers', 'prior_auth_rules']);
    expect(Object.values(rows).flat()).toHaveLength(23);
    // CMS's current OPD list: 51 codes in 8 categories, J0585-J0588 and the rhinoplasty grafts 20912/21210 included,
    // the codes CMS took off the list (63685, 63688, 64492, 64495) not.
    const cats = (await read(join(SEEDS, 'service_categories.yaml'))).rows.service_categories as { category: string; code_start: string }[];
    expect(cats).toHaveLength(51);
    expect(new Set(cats.map((c) => c.category)).size).toBe(8);
    const codes = cats.map((c) => c.code_start);
    for (const c of ['J0585', 'J0586', 'J0587', 'J0588', '20912', '21210', '30520', '63650']) expect(codes, c).toContain(c);
    for (const c of ['63685', '63688', '64492', '64495', '21235', '67911']) expect(codes, c).not.toContain(c);
    // The OPD rules: 7 calendar days standard, the botulinum toxin rule conditional on the drug/injection pairing.
    const opd = rows.prior_auth_rules as { rule_id: string; turnaround_standard_days: number; turnaround_standard_unit: string; condition: string | null; expiration_date: string | null }[];
    expect(opd.filter((r) => r.expiration_date === null).every((r) => r.turnaround_standard_days === 7 && r.turnaround_standard_unit === 'calendar_days')).toBe(true);
    expect(opd.find((r) => r.rule_id === 'opd_botulinum_toxin')!.condition).toMatch(/64612 or 64615/);
  });

  it('reads Medi-Cal\'s reduced-payment tiers after the six-month limit', async () => {
    const { rows, rejects } = await read(join(SEEDS, 'medi_cal.yaml'));
    expect(rejects).toEqual([]);
    expect(rows.filing_rules).toEqual([expect.objectContaining({ limit_value: 6, late_payment: [{ through: 9, payment_percent: 75 }, { through: 12, payment_percent: 50 }] })]);
  });
});

describe('payers seed documents read as whole sentences', () => {
  it('keeps a document a payer asks for in one item, never split at its commas (YAML flow lists)', async () => {
    const items: string[] = [];
    for (const f of (await readdir(join(REPO_ROOT, 'seeds/payers'))).filter((n) => n.endsWith('.yaml'))) {
      const { rows } = await parseAll(payers, join(REPO_ROOT, 'seeds/payers', f));
      for (const r of rows as Record<string, unknown>[]) for (const k of ['required_documents', 'documentation_needed']) if (Array.isArray(r[k])) items.push(...(r[k] as string[]));
    }
    expect(items.length).toBeGreaterThan(20);
    // A fragment of a split sentence starts with a conjunction, or leaves a parenthesis open.
    const fragments = items.filter((i) => /^(and|or|session)\b/.test(i) || (i.match(/\(/g) ?? []).length !== (i.match(/\)/g) ?? []).length);
    expect(fragments).toEqual([]);
    expect(items).toContain('Form CMS-20027 or a written request naming the beneficiary, the Medicare number, the items or services and dates, and why you disagree');
  });
});

describe('payers bad input', () => {
  it('rejects a row without a citation, a bad unit, another payer slug, a bad URL and an unknown field, by line', async () => {
    const { rows, rejects } = await read(UGLY);
    expect(rows.payers).toHaveLength(1);
    expect(rows.filing_rules).toEqual([expect.objectContaining({ payer_slug: 'acme_health', rule_id: 'good', state_override_days: { TX: 95 } })]);
    expect(rejects.map((r) => [r.line, r.table, r.issues!.map((i) => i.loc.join('.'))])).toEqual([
      [20, 'filing_rules', ['filing_rules.0.citation']],
      [26, 'filing_rules', ['filing_rules.1.limit_unit']],
      [42, 'appeal_levels', ['appeal_levels.0.payer_slug']],
      [51, 'appeal_levels', ['appeal_levels.1.citation.url', 'appeal_levels.1']],
      // CO-45 filed as medical necessity: CARC 45 is contractual in the vocabulary, so the pattern is refused.
      [62, 'denial_patterns', ['denial_patterns.denial_category']],
    ]);
    expect(rejects.at(-1)!.issues![0]!.msg).toBe('CARC 45 is of class contractual (lib/vocabulary/carc.ts); category medical_necessity means coverage: file the pattern under a category of class contractual, or correct the code');
    expect(rows.denial_patterns).toEqual([expect.objectContaining({ carc_code: '197', denial_category: 'prior_authorization' })]);
  });

  it('throws on an unknown section and on a document without a curated date', async () => {
    await expect(parseItems(payers, await writeTempFile('x.yaml', 'kind: payer\ncurated: 2026-01-01\npayer: {slug: x}\nrates: []\n'))).rejects.toThrow(/unknown section `rates`/);
    await expect(parseItems(payers, await writeTempFile('x.yaml', 'kind: payer\npayer: {slug: x}\n'))).rejects.toThrow(/`curated: YYYY-MM-DD` is required/);
  });
});
