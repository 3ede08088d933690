import { describe, expect, it } from 'vitest';
import type { AocRow } from '../../../datasets/ncci_aoc/dataset.js';
import type { ClaimFinding, ClaimLine } from '../schemas.js';
import type { AocFound, DayLookups } from '../validate.js';
import { addOnCode } from './add_on_code.js';
import { claimContext } from './edit.js';

/*
 * CMS NCCI add-on code edits: a type 1 add-on (11001 to 11000) is paid only with one of its listed
 * primary codes on the claim for the date; types 2 and 3 leave the primaries to the contractor. A
 * code Medicare does not pay is not paid as an add-on either.
 */
const line = (line_id: string, code: string): ClaimLine => ({ line_id, code, modifiers: [], units: 1, date_of_service: '2026-08-01' });
const edit = (aoc_edit_type: number): AocRow => ({ addon_code: '11001', primary_code: '11000', aoc_edit_type, aoc_edit_eff_dt: '2011-01-01', aoc_edit_del_dt: null, addon_eff_dt: null, addon_del_dt: null, primary_eff_dt: null, primary_del_dt: null, special_instruction_notes: null });
const context = (lines: ClaimLine[], type: number, found: ClaimFinding[] = []) => {
  const c = claimContext(lines, 'prac', () => ({ known: () => true, aoc: (code: string): AocFound => ({ dataset: 'ncci_aoc', version: '2026Q3', as_addon: code === '11001' ? [edit(type)] : [] }) }) as unknown as DayLookups);
  c.findings.push(...found);
  return c;
};

describe('add_on_code: an add-on code against its primaries', () => {
  it('passes 11001 billed with 11000, and fails it alone (type 1)', () => {
    const withPrimary = context([line('1', '11000'), line('2', '11001')], 1);
    addOnCode.check(withPrimary);
    expect(withPrimary.findings).toEqual([expect.objectContaining({ kind: 'aoc', status: 'pass', line_ids: ['2', '1'], rule: 'AOC type 1' })]);
    const alone = context([line('1', '11001')], 1);
    addOnCode.check(alone);
    expect(alone.findings).toEqual([expect.objectContaining({ status: 'fail', rule: 'AOC type 1' })]);
  });

  it('warns for a type 3 add-on without a listed primary', () => {
    const c = context([line('1', '11001')], 3);
    addOnCode.check(c);
    expect(c.findings).toEqual([expect.objectContaining({ status: 'warn', rule: 'AOC type 3' })]);
  });

  it('fails an add-on whose code failed the Medicare code check, even beside its primary', () => {
    const failed: ClaimFinding = { kind: 'code', status: 'fail', line_ids: ['2'], codes: ['11001'], message: 'not paid', edit: null, rule: 'PFS status I' };
    const c = context([line('1', '11000'), line('2', '11001')], 1, [failed]);
    addOnCode.check(c);
    expect(c.findings[1]).toMatchObject({ kind: 'aoc', status: 'fail', message: expect.stringMatching(/fails the Medicare code check \(PFS status I\); its primary 11000 \(line 1\) is on the claim, but a code Medicare does not pay is not paid as an add-on either/) });
  });
});
