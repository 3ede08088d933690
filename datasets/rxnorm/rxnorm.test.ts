import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { umlsConcepts } from '../umls_concepts/dataset.js';
import { rxnorm } from './dataset.js';
import { rxnormAtoms } from './queries.js';

const seed = join(REPO_ROOT, 'seeds', rxnorm.id, 'RXNCONSO_2023-11-06.RRF');
const LICENSED_LINE = '161|ENG||||||2022406||||MMSL|IN|d00049|acetaminophen||N||';

describe('rxnorm parser (seed: real RXNORM lines of the 2023-11-06 release)', () => {
  it('detects RXNCONSO by content (not MRCONSO), and reads the release date from the file name or the zip', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(rxnorm.detect(s)).toBe(true);
    expect(umlsConcepts.detect(s)).toBe(false);
    expect(rxnorm.version([s])).toEqual({ label: '2023-11-06', effective_date: '2023-11-06' });
    expect(rxnorm.version([{ ...s, name: 'RxNorm_full_11062023.zip' }])).toEqual({ label: '2023-11-06', effective_date: '2023-11-06' });
    expect(rxnorm.version([{ ...s, name: 'RXNCONSO.RRF' }])).toBeUndefined();
  });

  it('reads every seed line, numeric ids kept as text', async () => {
    const { rows, rejects } = await parseAll(rxnorm, seed);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(156);
    expect(rows.every((r) => r.sab === 'RXNORM')).toBe(true);
    expect(rows.find((r) => r.rxcui === '161' && r.tty === 'IN')).toEqual({
      rxcui: '161', lat: 'ENG', rxaui: '12250420', saui: '12250420', scui: '161', sdui: null, sab: 'RXNORM', tty: 'IN', code: '161', str: 'acetaminophen', suppress: 'N', cvf: '4096',
    });
  });

  it('rejects a line with a missing field or a non-numeric RXCUI, naming line and field', async () => {
    const p = await writeTempFile('RXNCONSO_2023-11-06.RRF', ['44|ENG||||||12251526|12251526|44||RXNORM|IN|44|mesna||N|4096|', 'C0000005|ENG||||||12251527|12251527|44||RXNORM|IN|44|mesna||N|4096|', '61|ENG||||||12254378|12254378|61||RXNORM|IN|61|beta-alanine||N|', ''].join('\n'));
    const { rows, rejects } = await parseAll(rxnorm, p);
    expect(rows).toHaveLength(1);
    expect(rejects).toEqual([
      { line: 2, issues: [expect.objectContaining({ loc: ['row', 2, 'RXCUI'] })] },
      { line: 3, issues: [expect.objectContaining({ loc: ['row', 3, 'row'] })] },
    ]);
  });
});

describe('rxnorm atoms', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    const withLicensed = await writeTempFile('RXNCONSO_2023-11-06.RRF', `${LICENSED_LINE}\n161|ENG||||||12250420|12250420|161||RXNORM|IN|161|acetaminophen||N|4096|\n202856|ENG||||||1136810|1136810|202856||RXNORM|BN|202856|Platinol||O||\n`);
    snap = await openTestSnapshot([{ dataset: rxnorm, files: [withLicensed] }]);
  });
  afterAll(() => snap?.close());

  it('answers RXNORM atoms only, unless the UMLS licence is held; never suppressed ones', async () => {
    const open = await rxnormAtoms(snap, false);
    expect(open?.atoms.map((a) => [a.sab, a.str])).toEqual([['RXNORM', 'acetaminophen']]);
    const licensed = await rxnormAtoms(snap, true);
    expect(licensed?.atoms.map((a) => a.sab).sort()).toEqual(['MMSL', 'RXNORM']);
  });
});
