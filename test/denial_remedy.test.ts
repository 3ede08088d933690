import { describe, expect, it } from 'vitest';
import { classifyDenial, DenialRemedySchema, REMEDIES, withDeadline, type DenialInput } from '../server/denials/remedy.js';

const d = (group: string | null, carc: string | null, more: Partial<DenialInput> = {}): DenialInput => ({ group, carc, rarc: null, payerType: null, ...more });
const pattern = (denial_category: string) => ({ denial_category, citation: { title: 'the payer’s own rule', url: 'https://example.test/rule' } });

describe('classifyDenial: one vocabulary for a denial’s next step', () => {
  it.each([
    ['CO-16 (unprocessable)', d('CO', '16'), 'correct_and_resubmit', 'provider', 'no'],
    ['RARC MA130 alone', d(null, null, { rarc: 'MA130' }), 'correct_and_resubmit', 'provider', 'no'],
    ['PR-1 deductible', d('PR', '1'), 'bill_patient', 'patient', 'no'],
    ['PR-3 copayment', d('PR', '3'), 'bill_patient', 'patient', 'no'],
    ['OA-23 prior payer', d('OA', '23'), 'no_action', 'other_payer', 'no'],
    ['OA-18 duplicate', d('OA', '18'), 'no_action', 'provider', 'no'],
    ['CO-22 coordination of benefits', d('CO', '22'), 'bill_other_payer', 'other_payer', 'conditional'],
    ['CO-109 wrong payer', d('CO', '109'), 'bill_other_payer', 'other_payer', 'conditional'],
    ['CO-45 over the fee schedule', d('CO', '45'), 'contractual_adjustment', 'provider', 'conditional'],
    ['CO-253 sequestration', d('CO', '253'), 'not_appealable', 'provider', 'no'],
    ['PR-204 not a plan benefit', d('PR', '204'), 'bill_patient', 'patient', 'conditional'],
    ['CO-50 medical necessity', d('CO', '50'), 'appeal', 'payer', 'yes'],
  ] as const)('%s: %s, the %s’s, appeal rights %s', (_, input, remedy, responsibility, rights) => {
    expect(classifyDenial(input)).toMatchObject({ remedy, responsibility, appeal_rights: rights });
  });

  it.each([
    ['missing_information', 'correct_and_resubmit', 'provider'],
    ['coding', 'correct_and_resubmit', 'provider'],
    ['bundling', 'correct_and_resubmit', 'provider'],
    ['medical_necessity', 'appeal', 'payer'],
    ['units_exceed_limit', 'appeal', 'payer'],
    ['prior_authorization', 'appeal', 'payer'],
    ['timely_filing', 'not_appealable', 'provider'],
    ['coordination_of_benefits', 'bill_other_payer', 'other_payer'],
    ['eligibility', 'bill_other_payer', 'other_payer'],
  ] as const)("a payer pattern of category %s: %s, the %s's, citing the payer's rule", (category, remedy, responsibility) => {
    const r = classifyDenial(d('CO', '29', { pattern: pattern(category) }));
    expect(r).toMatchObject({ remedy, responsibility });
    expect(r.citations).toEqual([pattern(category).citation]);
  });

  it('the code’s own rule wins over a pattern category (CO-45 stays a contractual adjustment)', () => {
    expect(classifyDenial(d('CO', '45', { pattern: pattern('medical_necessity') })).remedy).toBe('contractual_adjustment');
  });

  it('cites the Medicare manual for Medicare and X12 otherwise', () => {
    expect(classifyDenial(d('CO', '16', { payerType: 'medicare' })).citations[0]!.title).toMatch(/Pub\. 100-04, ch\. 1, section 80\.3\.2/);
    expect(classifyDenial(d('CO', '16')).citations[0]!.title).toMatch(/X12/);
    expect(classifyDenial(d('CO', '50', { payerType: 'medicare' })).citations[0]!.title).toMatch(/ch\. 29/);
  });

  it('gives the resubmission deadline to a corrected claim, the appeal deadline where appeal rights remain, and none otherwise', () => {
    const appeal = { kind: 'appeal' as const, date: '2026-07-06', days_remaining: 30, citation: null };
    const resubmit_by = { kind: 'resubmit_by' as const, date: '2027-02-10', days_remaining: 300, citation: null };
    expect(withDeadline(classifyDenial(d('CO', '16')), { appeal, resubmit_by }).deadline).toEqual(resubmit_by);
    expect(withDeadline(classifyDenial(d('CO', '50')), { appeal, resubmit_by }).deadline).toEqual(appeal);
    expect(withDeadline(classifyDenial(d('CO', '45')), { appeal, resubmit_by }).deadline).toEqual(appeal);
    expect(withDeadline(classifyDenial(d('PR', '1')), { appeal, resubmit_by }).deadline).toBeNull();
    expect(withDeadline(classifyDenial(d('CO', '50')), {}).deadline).toBeNull();
  });

  it('answers only the documented remedies and responsibilities, in the documented shape', () => {
    const inputs = [d('CO', '16'), d('PR', '1'), d('OA', '23'), d('CO', '22'), d('CO', '45'), d('CO', '253'), d('CO', '50'), d('CO', '1', { pattern: pattern('timely_filing') })];
    const seen = new Set(inputs.map((i) => DenialRemedySchema.parse(withDeadline(classifyDenial(i), {})).remedy));
    expect([...seen].sort()).toEqual([...REMEDIES].sort());
  });
});
