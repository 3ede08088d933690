import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ncciMuePrac } from '../../datasets/ncci_mue_prac/dataset.js';
import { ncciPtpPrac } from '../../datasets/ncci_ptp_prac/dataset.js';
import { ptpEditStatus } from '../../datasets/_ncci_ptp/queries.js';
import type { PtpRow } from '../../datasets/_ncci_ptp/row.js';
import type { MueRow } from '../../datasets/_ncci_mue/mue.js';
import { claimLookups } from '../../server/ncci/claim.js';
import { checkClaim } from '../../server/ncci/validate.js';
import type { ClaimLine } from '../../server/ncci/schemas.js';
import { ncciSources } from '../../server/ncci/sources.js';
import { openTestSnapshot, parseAll } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// The claim checker over the real CMS slices: every edit of the v32.2 practitioner PTP excerpt
// (part f1, 154 rows) and every row of the July 2026 practitioner MUE excerpt, loaded through the
// real ingest into a snapshot. Expected statuses are derived from each row as published.
const present = requireShared('ncci-ptp/ccipra-v322r0-f1.excerpt.txt', 'ncci-mue/MCR_MUE_PractitionerServices_Eff_07-01-2026.excerpt.csv');
const shared = sharedDataDir();
const PTP = join(shared, 'ncci-ptp', 'ccipra-v322r0-f1.excerpt.txt');
const MUE = join(shared, 'ncci-mue', 'MCR_MUE_PractitionerServices_Eff_07-01-2026.excerpt.csv');
const DOS = '2026-08-01';
const line = (id: string, code: string, modifiers: string[] = [], units = 1): ClaimLine => ({ line_id: id, code, modifiers, units, date_of_service: DOS });

describe.skipIf(!present)('POST /v1/ncci/validate rules over the real PTP and MUE excerpts', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  let ptpRows: PtpRow[];
  let mueRows: MueRow[];
  beforeAll(async () => {
    // The excerpt is part f1 alone: the four-part set check is lifted for this test load.
    snap = await openTestSnapshot([
      { dataset: { ...ncciPtpPrac, checkFiles: undefined }, files: [PTP] },
      { dataset: ncciMuePrac, files: [MUE] },
    ]);
    ptpRows = (await parseAll(ncciPtpPrac, PTP)).rows as PtpRow[];
    mueRows = (await parseAll(ncciMuePrac, MUE)).rows as MueRow[];
  });
  afterAll(() => snap?.close());

  it('every PTP pair answers as its published row says: indicator 0 fails even with 59, 1 is bypassed by 59, 9 and retired edits pass', async () => {
    const lk = claimLookups(snap, ncciSources(null, 'prac'));
    const pairs = new Map<string, PtpRow[]>();
    for (const r of ptpRows) pairs.set(`${r.column1}/${r.column2}`, [...(pairs.get(`${r.column1}/${r.column2}`) ?? []), r]);
    const tally: Record<string, number> = {};
    for (const rows of pairs.values()) {
      const r = rows.find((x) => ptpEditStatus(x, DOS) === 'active') ?? rows[0]!;
      const st = ptpEditStatus(r, DOS);
      const plain = (await checkClaim([line('1', r.column1), line('2', r.column2)], lk)).findings.find((f) => f.kind === 'ptp')!;
      const with59 = (await checkClaim([line('1', r.column1), line('2', r.column2, ['59'])], lk)).findings.find((f) => f.kind === 'ptp')!;
      const want = st !== 'active' ? ['pass', 'pass'] : r.modifier_indicator === '0' ? ['fail', 'fail'] : ['fail', 'bypassed'];
      expect([plain.status, with59.status], `${r.column1}/${r.column2} ${st} ${r.modifier_indicator}`).toEqual(want);
      expect(plain.edit).toMatchObject({ column1: r.column1, column2: r.column2, version: '32.2' });
      const k = `${st}:${r.modifier_indicator}`;
      tally[k] = (tally[k] ?? 0) + 1;
    }
    expect(pairs.size).toBe(154);
    // 66 edits in force (all indicator 1), 82 retired before 2026-08-01, 6 indicator-9 edits.
    expect(tally).toEqual({ 'active:1': 66, 'deleted:1': 73, 'deleted:0': 9, 'not_applicable:9': 6 });
  });

  it('every MUE row: the value passes, one more unit fails (MAI 1 per line, MAI 2/3 summed over two lines)', async () => {
    const lk = claimLookups(snap, ncciSources(null, 'prac'));
    const byMai: Record<number, number> = {};
    for (const r of mueRows) {
      const at = await checkClaim([line('1', r.proc_cd, [], r.mue_value)], lk);
      expect(at.findings.find((f) => f.kind === 'mue'), r.proc_cd).toMatchObject({ status: 'pass', rule: `MAI ${r.mue_adj_ind}` });
      const split = await checkClaim([line('1', r.proc_cd, [], r.mue_value), line('2', r.proc_cd, [], 1)], lk);
      const statuses = split.findings.filter((f) => f.kind === 'mue').map((f) => f.status);
      expect(statuses, r.proc_cd).toEqual(r.mue_adj_ind === 1 ? ['pass', 'pass'] : ['fail']);
      byMai[r.mue_adj_ind] = (byMai[r.mue_adj_ind] ?? 0) + 1;
    }
    // The excerpt has 44 rows, all date-of-service edits (MAI 1 is covered by the unit tests).
    expect(byMai).toEqual({ 2: 30, 3: 14 });
  });
});
