import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseItems, parseTables, REPO_ROOT, writeTempFile } from '../../test/helpers/datasets.js';
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
    expect(Object.values(rows).flat()).toHaveLength(22);
    expect((await read(join(SEEDS, 'service_categories.yaml'))).rows.service_categories).toHaveLength(49);
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
      [50, 'appeal_levels', ['appeal_levels.1.citation.url', 'appeal_levels.1']],
    ]);
  });

  it('throws on an unknown section and on a document without a curated date', async () => {
    await expect(parseItems(payers, await writeTempFile('x.yaml', 'kind: payer\ncurated: 2026-01-01\npayer: {slug: x}\nrates: []\n'))).rejects.toThrow(/unknown section `rates`/);
    await expect(parseItems(payers, await writeTempFile('x.yaml', 'kind: payer\npayer: {slug: x}\n'))).rejects.toThrow(/`curated: YYYY-MM-DD` is required/);
  });
});
