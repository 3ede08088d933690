import { describe, expect, it } from 'vitest';
import type { ClaimLine } from '../schemas.js';
import type { DayLookups, MueFound } from '../validate.js';
import { claimContext } from './edit.js';
import { mue, MUE_ADJUDICATION_CITATION } from './mue.js';

/*
 * CMS FAQ 11344 (how claims are adjudicated with MUEs): a claim line edit (MAI 1) denies all units
 * of a line over the MUE; a date of service edit (MAI 2, 3) sums the code's units on the date and
 * denies all of them over it, not only the excess. Medicaid MUEs carry no MAI.
 */
const line = (line_id: string, units: number): ClaimLine => ({ line_id, code: '20610', modifiers: [], units, date_of_service: '2026-08-01' });
const context = (lines: ClaimLine[], mai: 1 | 2 | 3 | null, value = 2) =>
  claimContext(lines, 'prac', () => ({ known: () => true, mue: (): MueFound => ({ dataset: 'ncci_mue_prac', version: '2026Q3', row: { mue_value: value, mue_adj_ind: mai, mue_adj_ind_label: null, mue_rationale: 'Clinical: Data' } }) }) as unknown as DayLookups);

describe('mue: units against the medically unlikely edit of the code', () => {
  it('denies all 3 units of a line over an MAI 1 MUE of 2, and passes the line within it', () => {
    const c = context([line('1', 3), line('2', 2)], 1);
    mue.check(c);
    expect(c.findings.map((f) => [f.line_ids, f.status, f.denied_units])).toEqual([[['1'], 'fail', 3], [['2'], 'pass', undefined]]);
    expect(c.findings[0]!.citation).toEqual(MUE_ADJUDICATION_CITATION);
  });

  it('sums the lines of the date for MAI 3: 2 + 1 units over 2 deny all 3', () => {
    const c = context([line('1', 2), line('2', 1)], 3);
    mue.check(c);
    expect(c.findings).toEqual([expect.objectContaining({ line_ids: ['1', '2'], status: 'fail', rule: 'MAI 3', denied_units: 3 })]);
  });

  it('checks a Medicaid MUE (no MAI) per line and warns when the lines together exceed it', () => {
    const c = context([line('1', 2), line('2', 1)], null);
    mue.check(c);
    expect(c.findings.map((f) => f.status)).toEqual(['pass', 'pass', 'warn']);
  });
});
