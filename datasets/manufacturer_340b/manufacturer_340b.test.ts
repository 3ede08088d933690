import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseItems, parseTables, REPO_ROOT, writeTempFile } from '../../test/helpers/datasets.js';
import { manufacturer340b } from './dataset.js';

const SEEDS = join(REPO_ROOT, 'seeds/manufacturer_340b');
/** A manufacturer document whose rows break each rule once, beside one good policy. */
const UGLY = join(REPO_ROOT, 'test/fixtures/manufacturer_340b/acme_pharma.yaml');

const read = (path: string) => parseTables(manufacturer340b, path);

describe('manufacturer_340b parser (seed YAML documents)', () => {
  it('detects a manufacturer document and versions it by its curated date', async () => {
    expect(await detectFile(manufacturer340b, join(SEEDS, 'abbvie.yaml'))).toEqual({ detected: true, version: { label: '2026-11-24', effective_date: '2026-11-24' } });
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
    expect(laws.map((l) => [l.state, l.effective_date])).toEqual([['AR', '2021-07-26'], ['LA', null], ['WV', '2024-06-06'], ['MD', null], ['MO', '2024-08-28']]);
    expect((await read(join(SEEDS, 'rebate_pilot.yaml'))).rows.rebate_pilot!.map((r) => r.status)).toEqual(['announced', 'approved', 'enjoined']);
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
