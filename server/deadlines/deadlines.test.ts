import { describe, expect, it } from 'vitest';
import type { AppealLevelRow, FilingRuleRow } from '../../datasets/payers/schema.js';
import { appealDeadlines, filingDeadline, receiptConvention } from './deadlines.js';

const cite = { title: 'test source', url: 'https://example.org/rule', retrieved: '2026-11-22' };
const rule = (r: Partial<FilingRuleRow>): FilingRuleRow => ({
  payer_slug: 'p',
  rule_id: 'initial',
  claim_type: 'initial',
  plan_type: null,
  limit_value: 12,
  limit_unit: 'months',
  clock_starts: 'date_of_service',
  business_day_rule: 'next_business_day',
  plan_override_days: {},
  state_override_days: {},
  effective_date: null,
  expiration_date: null,
  notes: null,
  citation: cite,
  ...r,
});
const level = (n: number, l: Partial<AppealLevelRow>): AppealLevelRow => ({
  payer_slug: 'p',
  plan_type: null,
  appeal_level: n,
  level_name: `level ${n}`,
  deadline_days: 60,
  starts_from: n === 1 ? 'notice_receipt' : 'previous_decision_receipt',
  appeal_kind: 'claim_appeal',
  receipt_presumption_days: 5,
  business_day_rule: 'next_business_day',
  amount_in_controversy: null,
  external_review_deadline_days: null,
  peer_to_peer_available: false,
  required_documents: [],
  submission_method: null,
  success_rate: null,
  state_specific_rules: {},
  citation: cite,
  ...l,
});

describe('timely filing (42 CFR 424.44: 12 months from the date of service)', () => {
  it('a leap-day service is due on February 28 of the next year', () => {
    const d = filingDeadline(rule({}), { date_of_service: '2024-02-29', as_of: '2025-01-15' });
    // 2025-02-28 is a Friday: no business-day move.
    expect(d).toMatchObject({ deadline_date: '2025-02-28', days_remaining: 44, is_expired: false, business_day_adjustment: null });
    expect(d.explanation).toBe('12 months from the date of service 2024-02-29');
  });

  it('a deadline on a weekend moves to the next business day when the rule says so, and not otherwise', () => {
    // 2025-03-15 + 12 months = 2026-03-15, a Sunday.
    const moved = filingDeadline(rule({}), { date_of_service: '2025-03-15', as_of: '2026-03-16' });
    expect(moved).toMatchObject({ deadline_date: '2026-03-16', days_remaining: 0, is_expired: false, business_day_adjustment: { moved_from: '2026-03-15', reasons: ['2026-03-15 is a Sunday'] } });
    const kept = filingDeadline(rule({ business_day_rule: 'none' }), { date_of_service: '2025-03-15', as_of: '2026-03-16' });
    expect(kept).toMatchObject({ deadline_date: '2026-03-15', days_remaining: -1, is_expired: true });
  });

  it('month ends clamp (a January 31 service plus one month is due February 28)', () => {
    expect(filingDeadline(rule({ limit_value: 1, business_day_rule: 'none' }), { date_of_service: '2025-01-31', as_of: '2025-01-31' }).deadline_date).toBe('2025-02-28');
  });

  it('counts days, and applies state overrides before plan overrides', () => {
    const r = rule({ limit_value: 90, limit_unit: 'days', business_day_rule: 'none', plan_override_days: { hmo: 180 }, state_override_days: { TX: 95 } });
    expect(filingDeadline(r, { date_of_service: '2026-01-01', as_of: '2026-01-01' })).toMatchObject({ deadline_date: '2026-04-01', override_applied: null, limit_value: 90 });
    expect(filingDeadline(r, { date_of_service: '2026-01-01', as_of: '2026-01-01', plan_type: 'hmo' })).toMatchObject({ deadline_date: '2026-06-30', override_applied: 'plan:hmo' });
    expect(filingDeadline(r, { date_of_service: '2026-01-01', as_of: '2026-01-01', plan_type: 'hmo', state: 'TX' })).toMatchObject({ deadline_date: '2026-04-06', override_applied: 'state:TX' });
  });

  it('"six months following the month of service" ends on the last day of the sixth month after it', () => {
    const r = rule({ limit_value: 6, clock_starts: 'end_of_service_month', business_day_rule: 'none' });
    expect(filingDeadline(r, { date_of_service: '2026-02-10', as_of: '2026-02-10' }).deadline_date).toBe('2026-08-31');
    expect(filingDeadline(r, { date_of_service: '2025-08-31', as_of: '2026-01-01' }).deadline_date).toBe('2026-02-28');
    expect(filingDeadline(r, { date_of_service: '2023-08-15', as_of: '2024-01-01' }).deadline_date).toBe('2024-02-29');
  });

  it('a rule counting from the primary payment needs that date, and says so without it', () => {
    const r = rule({ limit_value: 90, limit_unit: 'days', clock_starts: 'primary_payment_date', business_day_rule: 'none' });
    const without = filingDeadline(r, { date_of_service: '2026-01-01', as_of: '2026-01-01' });
    expect(without.deadline_date).toBeUndefined();
    expect(without.explanation).toMatch(/pass primary_payment_date/);
    expect(filingDeadline(r, { date_of_service: '2026-01-01', as_of: '2026-06-01', primary_payment_date: '2026-03-01' })).toMatchObject({ deadline_date: '2026-05-30', is_expired: true, days_remaining: -2 });
  });
});

describe('Medi-Cal reduced payment after the six-month limit (W&I Code 14115: 75% in months 7-9, 50% in months 10-12)', () => {
  const mediCal = rule({
    limit_value: 6,
    clock_starts: 'end_of_service_month',
    business_day_rule: 'none',
    late_payment: [
      { through: 12, payment_percent: 50 },
      { through: 9, payment_percent: 75 },
    ],
  });

  it('is not expired in month 8: the claim is paid at 75%, and the answer says so with every window', () => {
    // Service in February 2026: full payment through 2026-08-31, then September-November at 75%,
    // December-February at 50% (2027-02-28, not a leap year), denied after.
    const d = filingDeadline(mediCal, { date_of_service: '2026-02-10', as_of: '2026-10-15' });
    expect(d).toMatchObject({ deadline_date: '2027-02-28', is_expired: false, days_remaining: 136, full_payment_deadline_date: '2026-08-31', payment_percent_as_of: 75 });
    expect(d.payment_schedule).toEqual([
      { from_date: null, through_date: '2026-08-31', payment_percent: 100 },
      { from_date: '2026-09-01', through_date: '2026-11-30', payment_percent: 75 },
      { from_date: '2026-12-01', through_date: '2027-02-28', payment_percent: 50 },
    ]);
    expect(d.explanation).toBe(
      'within 6 months following the month of service (2026-02): paid in full if received by 2026-08-31; 75% if received 2026-09-01 to 2026-11-30; 50% if received 2026-12-01 to 2027-02-28; denied after 2027-02-28 unless an exception applies. Received on 2026-10-15: paid at 75%',
    );
  });

  it('pays in full through the sixth month, 50% through the twelfth, and is expired the day after', () => {
    expect(filingDeadline(mediCal, { date_of_service: '2026-02-10', as_of: '2026-08-31' })).toMatchObject({ payment_percent_as_of: 100, is_expired: false });
    expect(filingDeadline(mediCal, { date_of_service: '2026-02-10', as_of: '2026-12-01' })).toMatchObject({ payment_percent_as_of: 50, is_expired: false });
    expect(filingDeadline(mediCal, { date_of_service: '2026-02-10', as_of: '2027-02-28' })).toMatchObject({ payment_percent_as_of: 50, is_expired: false, days_remaining: 0 });
    expect(filingDeadline(mediCal, { date_of_service: '2026-02-10', as_of: '2027-03-01' })).toMatchObject({ payment_percent_as_of: 0, is_expired: true, days_remaining: -1 });
  });

  it('counts month ends and leap days: a May 2023 service runs to 2023-11-30, 2024-02-29 (leap) and 2024-05-31', () => {
    const d = filingDeadline(mediCal, { date_of_service: '2023-05-31', as_of: '2024-02-29' });
    expect(d.payment_schedule!.map((w) => w.through_date)).toEqual(['2023-11-30', '2024-02-29', '2024-05-31']);
    expect(d).toMatchObject({ payment_percent_as_of: 75, deadline_date: '2024-05-31' });
    // An August 31 service: February 28 (2026), then May 31 and August 31.
    expect(filingDeadline(mediCal, { date_of_service: '2025-08-31', as_of: '2026-03-01' }).payment_schedule!.map((w) => [w.from_date, w.through_date])).toEqual([
      [null, '2026-02-28'],
      ['2026-03-01', '2026-05-31'],
      ['2026-06-01', '2026-08-31'],
    ]);
  });

  it('an override in days replaces the rule, tiers and all; a rule without tiers answers as before', () => {
    const withOverride = { ...mediCal, state_override_days: { CA: 180 } };
    const d = filingDeadline(withOverride, { date_of_service: '2026-02-10', as_of: '2026-10-15', state: 'CA' });
    expect(d).toMatchObject({ override_applied: 'state:CA', deadline_date: '2026-08-27', is_expired: true });
    expect(d.payment_schedule).toBeUndefined();
    const plain = filingDeadline(rule({}), { date_of_service: '2024-02-29', as_of: '2025-01-15' });
    expect(plain.full_payment_deadline_date).toBeUndefined();
  });
});

describe('appeal deadlines (42 CFR 405 subpart I)', () => {
  const medicare = [level(1, { deadline_days: 120 }), level(2, { deadline_days: 180 }), level(3, { amount_in_controversy: 200 })];

  it('the first level runs 120 days from presumed receipt (notice date + 5), moved off a weekend', () => {
    const [l1, l2, l3] = appealDeadlines(medicare, { denial_date: '2026-03-02', as_of: '2026-04-01' });
    // 2026-03-02 + 5 = 2026-03-07; + 120 days = 2026-07-05 (a Sunday) -> Monday 2026-07-06.
    expect(l1).toMatchObject({ deadline_date: '2026-07-06', days_remaining: 96, is_expired: false, business_day_adjustment: { moved_from: '2026-07-05' } });
    expect(l1!.starts_from).toBe('receipt of the denial notice (2026-03-02 + 5 days presumed mailing = 2026-03-07)');
    // Later levels run from the previous decision: days, no date.
    expect(l2).toMatchObject({ deadline_days: 180, deadline_date: null, days_remaining: null, is_expired: null });
    expect(l2!.starts_from).toMatch(/pass decision_date for level 1/);
    expect(l3).toMatchObject({ amount_in_controversy: 200, deadline_date: null });
  });

  it('is expired the day after the deadline, not on it', () => {
    expect(appealDeadlines(medicare, { denial_date: '2026-03-02', as_of: '2026-07-06' })[0]).toMatchObject({ days_remaining: 0, is_expired: false });
    expect(appealDeadlines(medicare, { denial_date: '2026-03-02', as_of: '2026-07-07' })[0]).toMatchObject({ days_remaining: -1, is_expired: true });
  });

  it('dates the next level from a decision date, and across a leap day', () => {
    const out = appealDeadlines(medicare, { denial_date: '2027-09-01', as_of: '2028-01-01', decision_date: '2027-12-31', decision_level: 1 });
    // 2027-12-31 + 5 = 2028-01-05; + 180 = 2028-07-03 (2028 is a leap year: Feb has 29 days).
    expect(out[1]).toMatchObject({ deadline_date: '2028-07-03', days_remaining: 184 });
    expect(out[2]!.deadline_date).toBeNull();
  });

  it('applies a state-specific deadline and its citation when the state is given', () => {
    const stateCite = { title: 'state rule', url: 'https://example.org/state', retrieved: '2026-11-22' };
    const rows = [level(1, { deadline_days: 60, receipt_presumption_days: 0, starts_from: 'notice_date', business_day_rule: 'none', state_specific_rules: { CA: { deadline_days: 180, citation: stateCite } } })];
    expect(appealDeadlines(rows, { denial_date: '2026-01-01', as_of: '2026-01-01' })[0]).toMatchObject({ deadline_days: 60, deadline_date: '2026-03-02', state_override_applied: null });
    expect(appealDeadlines(rows, { denial_date: '2026-01-01', as_of: '2026-01-01', state: 'CA' })[0]).toMatchObject({ deadline_days: 180, deadline_date: '2026-06-30', state_override_applied: 'CA', citation: stateCite });
    expect(receiptConvention(rows)).toMatch(/date on the notice/);
    expect(receiptConvention(medicare)).toMatch(/presumed received 5 days after/);
  });
});
