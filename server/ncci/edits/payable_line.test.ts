import { describe, expect, it } from 'vitest';
import type { ClaimLine } from '../schemas.js';
import type { DayLookups, MedicareCodeFacts } from '../validate.js';
import { claimContext } from './edit.js';
import { payableLine } from './payable_line.js';

/*
 * The RVU file's status code definitions (RVU25D.pdf: I, not valid for Medicare purposes) and the
 * NCCI Policy Manual, chapter I, section E (modifier 59 and -X{EPSU} are not used with E/M
 * services): 99417 with status I fails on a Medicare professional claim; 99213-59 fails as a
 * modifier on any claim, Medicare or not.
 */
const line = (line_id: string, code: string, modifiers: string[] = []): ClaimLine => ({ line_id, code, modifiers, units: 1, date_of_service: '2026-08-01' });
const facts = (status_code: string | null): MedicareCodeFacts => ({ rvu_version: '2026A', status_code, outside_release: null, opps: null, clfs: false, dmepos: false, asp: false });
const context = (lines: ClaimLine[], medicare?: DayLookups['medicare']) => claimContext(lines, 'prac', () => ({ medicare, known: () => true }) as unknown as DayLookups);

describe('payable_line: what Medicare pays for each line, and 59/X on an E/M line', () => {
  it('fails 99417 (PFS status I) on a Medicare professional claim, citing the RVU file', () => {
    const c = context([line('1', '99417'), line('2', '99215')], (code) => facts(code === '99417' ? 'I' : 'A'));
    payableLine.check(c);
    expect(c.findings).toEqual([expect.objectContaining({ kind: 'code', status: 'fail', line_ids: ['1'], rule: 'PFS status I', citation: expect.objectContaining({ title: expect.stringMatching(/Status Code/) }) })]);
  });

  it('fails 59 on an E/M line on any claim, and checks nothing else of a claim that is not Medicare', () => {
    const c = context([line('1', '99213', ['59']), line('2', '20610', ['59'])]);
    payableLine.check(c);
    expect(c.findings).toEqual([expect.objectContaining({ kind: 'modifier', status: 'fail', line_ids: ['1'], rule: 'modifier 59 on an E/M code' })]);
  });
});
