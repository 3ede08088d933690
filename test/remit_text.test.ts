import { describe, expect, it } from 'vitest';
import { deadlineWords } from '../cli/commands/remit.js';

describe('a remittance deadline as a person reads it', () => {
  it('says "appeal by" with the days left, or that the window closed and how long ago, for each kind', () => {
    expect(deadlineWords({ kind: 'appeal_by', date: '2026-04-06', days_remaining: 117 })).toBe('appeal by 2026-04-06 (117 days)');
    expect(deadlineWords({ kind: 'appeal_by', date: '2021-08-03', days_remaining: -1951 })).toBe('appeal window closed 2021-08-03 (1,951 days ago)');
    expect(deadlineWords({ kind: 'reopen_by', date: '2027-08-03', days_remaining: 1 })).toBe('reopen by 2027-08-03 (1 day)');
    expect(deadlineWords({ kind: 'reopen_by', date: '2025-08-03', days_remaining: -1 })).toBe('reopening window closed 2025-08-03 (1 day ago)');
    expect(deadlineWords({ kind: 'resubmit_by', date: '2026-12-01', days_remaining: 0 })).toBe('resubmit by 2026-12-01 (today)');
    expect(deadlineWords({ kind: 'resubmit_by', date: '2026-12-01', days_remaining: -30 })).toBe('filing limit passed 2026-12-01 (30 days ago)');
    expect(deadlineWords({ kind: 'appeal_by', date: null, days_remaining: null })).toBeNull();
  });
});
