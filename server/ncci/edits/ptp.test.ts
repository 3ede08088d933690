import { describe, expect, it } from 'vitest';
import { ptpEditStatus, type PtpLookup } from '../../../datasets/_ncci_ptp/queries.js';
import type { PtpRow } from '../../../datasets/_ncci_ptp/row.js';
import type { ClaimLine } from '../schemas.js';
import type { DayLookups } from '../validate.js';
import { claimContext } from './edit.js';
import { ptp } from './ptp.js';

/*
 * The NCCI Policy Manual, chapter I, sections D and E: a column 2 code is not paid with its column
 * 1 code on the same date; modifier indicator 0 allows no modifier, 1 allows an NCCI-associated
 * modifier (59 among them) when the documentation supports a distinct service.
 */
const line = (line_id: string, code: string, modifiers: string[] = [], date_of_service = '2026-08-01'): ClaimLine => ({ line_id, code, modifiers, units: 1, date_of_service });
const row = (modifier_indicator: '0' | '1'): PtpRow => ({ column1: '20610', column2: '20604', in_existence_prior_1996: false, effective_date: '2020-01-01', deletion_date: null, modifier_indicator, rationale: 'Mutually exclusive procedures' });
const choice = { version: { version: '32.2', effective_date: '2026-07-01' }, covered: true } as PtpLookup['choice'];
const context = (lines: ClaimLine[], r: PtpRow) =>
  claimContext(lines, 'prac', () => ({ known: () => true, ptp: (): PtpLookup => ({ dataset: 'ncci_ptp_prac', choice, row: r, status: ptpEditStatus(r, '2026-08-01') }) }) as unknown as DayLookups);

describe('ptp: procedure-to-procedure edits over every pair of lines on a date', () => {
  it('fails indicator 0 whatever the modifiers, in CMS column order, and records the file read', () => {
    const c = context([line('a', '20604', ['59']), line('b', '20610')], row('0'));
    ptp.check(c);
    expect(c.pairs_checked).toBe(1);
    expect(c.versions).toEqual({ ncci_ptp_prac: '32.2' });
    expect(c.findings).toEqual([expect.objectContaining({ kind: 'ptp', status: 'fail', rule: 'modifier indicator 0', line_ids: ['b', 'a'], codes: ['20610', '20604'] })]);
  });

  it('lets 59 bypass indicator 1, and pairs no lines of different dates', () => {
    const c = context([line('1', '20610'), line('2', '20604', ['59'])], row('1'));
    ptp.check(c);
    expect(c.findings).toEqual([expect.objectContaining({ status: 'bypassed', rule: 'modifier 59 (distinct procedural service)' })]);
    const apart = context([line('1', '20610'), line('2', '20604', [], '2026-08-02')], row('1'));
    ptp.check(apart);
    expect([apart.pairs_checked, apart.findings]).toEqual([0, []]);
  });
});
