import { describe, expect, it } from 'vitest';
import type { ClaimLine } from '../schemas.js';
import type { DayLookups } from '../validate.js';
import { claimContext } from './edit.js';
import { unknownCode } from './unknown_code.js';

const line = (line_id: string, code: string): ClaimLine => ({ line_id, code, modifiers: [], units: 1, date_of_service: '2026-08-01' });
const context = (lines: ClaimLine[]) => claimContext(lines, 'prac', () => ({ known: (code: string) => code !== 'ZZZZZ' }) as DayLookups);

describe('unknown_code: a code no loaded file knows is no_data, never a silent pass', () => {
  it('answers no_data for ZZZZZ on line 2, and nothing for the known 99213', () => {
    const c = context([line('1', '99213'), line('2', 'ZZZZZ')]);
    unknownCode.check(c);
    expect(c.findings).toEqual([
      { kind: 'code', status: 'no_data', line_ids: ['2'], codes: ['ZZZZZ'], message: 'ZZZZZ (line 2) is in none of the loaded code sets (physician RVUs, OPPS, CLFS, DMEPOS, NCCI) for 2026-08-01: its edits cannot be checked', edit: null, rule: null },
    ]);
  });
});
