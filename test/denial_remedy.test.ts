import { describe, expect, it } from 'vitest';
import { classifyAcknowledgment, classifyDenial, DenialRemedySchema, REMEDIES, withDeadline, type DenialInput } from '../server/denials/remedy.js';

const d = (group: string | null, carc: string | null, more: Partial<DenialInput> = {}): DenialInput => ({ group, carc, rarc: null, payerType: null, ...more });
const pattern = (denial_category: string) => ({ denial_category, citation: { title: 'the payer’s own rule', url: 'https://example.test/rule' } });

describe('classifyDenial: one vocabulary for a denial’s next step', () => {
  it.each([
    ['CO-16 (unprocessable)', d('CO', '16'), 'correct_and_resubmit', 'provider', 'no'],
    ['RARC MA130 alone', d(null, null, { rarc: 'MA130' }), 'correct_and_resubmit', 'provider', 'no'],
    ['PR-1 deductible', d('PR', '1'), 'bill_patient', 'patient', 'no'],
    ['PR-3 copayment', d('PR', '3'), 'bill_patient', 'patient', 'no'],
    ['OA-23 prior payer (coordination of benefits)', d('OA', '23'), 'bill_other_payer', 'other_payer', 'no'],
    ['OA-18 duplicate', d('OA', '18'), 'check_original_claim', 'provider', 'no'],
    ['CO-18 duplicate at Medicare', d('CO', '18', { payerType: 'medicare' }), 'check_original_claim', 'provider', 'no'],
    ['CO-29 at Medicare (not an initial determination)', d('CO', '29', { payerType: 'medicare' }), 'not_appealable', 'provider', 'no'],
    ['CO-29 elsewhere (proof of timely filing only)', d('CO', '29'), 'not_appealable', 'provider', 'conditional'],
    ['CO-97 bundled', d('CO', '97'), 'correct_and_resubmit', 'provider', 'conditional'],
    ['PR-96 non-covered, statutory exclusion (GY)', d('PR', '96', { payerType: 'medicare', modifiers: ['GY'] }), 'bill_patient', 'patient', 'conditional'],
    ['PR-96 non-covered, ABN on file (GA)', d('PR', '96', { payerType: 'medicare', modifiers: ['GA'] }), 'bill_patient', 'patient', 'conditional'],
    ['CO-50 at Medicare with GZ (no ABN)', d('CO', '50', { payerType: 'medicare', modifiers: ['GZ'] }), 'appeal', 'provider', 'yes'],
    ['CARC 50 at Medicare with GA (ABN on file)', d(null, '50', { payerType: 'medicare', modifiers: ['GA', 'RT'] }), 'bill_patient', 'patient', 'conditional'],
    ['PR-50 at Medicare', d('PR', '50', { payerType: 'medicare' }), 'bill_patient', 'patient', 'conditional'],
    ['CO-22 coordination of benefits', d('CO', '22'), 'bill_other_payer', 'other_payer', 'conditional'],
    ['CO-109 wrong payer', d('CO', '109'), 'bill_other_payer', 'other_payer', 'conditional'],
    ['CO-45 over the fee schedule', d('CO', '45'), 'contractual_adjustment', 'provider', 'conditional'],
    ['CO-253 sequestration', d('CO', '253'), 'not_appealable', 'provider', 'no'],
    ['PR-204 not a plan benefit', d('PR', '204'), 'bill_patient', 'patient', 'conditional'],
    ['CO-50 medical necessity, no modifiers', d('CO', '50'), 'appeal', 'provider', 'yes'],
    ['CARC 151 without a group', d(null, '151'), 'appeal', 'payer', 'yes'],
  ] as const)('%s: %s, the %s’s, appeal rights %s', (_, input, remedy, responsibility, rights) => {
    expect(classifyDenial(input)).toMatchObject({ remedy, responsibility, appeal_rights: rights });
  });

  it.each([
    ['missing_information', 'correct_and_resubmit', 'provider'],
    ['coding', 'correct_and_resubmit', 'provider'],
    ['bundling', 'correct_and_resubmit', 'provider'],
    ['medical_necessity', 'appeal', 'provider'],
    ['units_exceed_limit', 'appeal', 'provider'],
    ['prior_authorization', 'appeal', 'provider'],
    ['timely_filing', 'not_appealable', 'provider'],
    ['coordination_of_benefits', 'bill_other_payer', 'other_payer'],
    ['eligibility', 'bill_other_payer', 'other_payer'],
  ] as const)("a payer pattern of category %s: %s, the %s's, citing the payer's rule", (category, remedy, responsibility) => {
    const r = classifyDenial(d('CO', '29', { pattern: pattern(category) }));
    expect(r).toMatchObject({ remedy, responsibility });
    expect(r.citations).toEqual([pattern(category).citation]);
  });

  it('the code’s own rule wins over a pattern category (CO-45 stays a contractual adjustment, Medicare CO-29 stays without appeal rights)', () => {
    expect(classifyDenial(d('CO', '45', { pattern: pattern('medical_necessity') })).remedy).toBe('contractual_adjustment');
    expect(classifyDenial(d('CO', '29', { payerType: 'medicare', pattern: pattern('timely_filing') }))).toMatchObject({ remedy: 'not_appealable', appeal_rights: 'no', appeal_condition: null });
    // One rule for CO-97: the lookup without a payer and a payer's bundling pattern give the same remedy.
    expect(classifyDenial(d('CO', '97')).remedy).toBe(classifyDenial(d('CO', '97', { payerType: 'medicare', pattern: pattern('bundling') })).remedy);
  });

  it('Medicare CO-29 cites 42 CFR 405.926(n) and the Claims Processing Manual ch. 1, section 70.7, and names the 424.44(b) exceptions', () => {
    const r = classifyDenial(d('CO', '29', { payerType: 'medicare' }));
    expect(r.citations.map((c) => c.title).join(' | ')).toMatch(/405\.926\(n\).*ch\. 1, section 70\.7/);
    expect(r.reason).toMatch(/424\.44\(b\)/);
    expect(withDeadline(r, { appeal: { kind: 'appeal', date: '2026-07-06', days_remaining: 30, citation: null } }).deadline).toBeNull();
  });

  it('a duplicate is checked against the original claim, never appealed; OA-23 goes to the other payer', () => {
    expect(classifyDenial(d('OA', '18')).reason).toMatch(/check the original claim's status/);
    expect(classifyDenial(d('OA', '23')).reason).toMatch(/coordination of benefits/);
  });

  it('Medicare medical necessity: the ABN decides whose it is, and the provider keeps redetermination rights (120 days) without one', () => {
    const gz = classifyDenial(d('CO', '50', { payerType: 'medicare', modifiers: ['GZ'] }));
    expect(gz.reason).toMatch(/no ABN was obtained \(GZ\).*may not bill the patient.*120 days/);
    expect(gz.citations.map((c) => c.title).join(' | ')).toMatch(/ch\. 30.*405\.942/);
    const none = classifyDenial(d('CO', '50', { payerType: 'medicare' }));
    expect(none).toMatchObject({ responsibility: 'provider', appeal_rights: 'yes' });
    expect(none.reason).toMatch(/no ABN on file/);
    // GA on the line but the payer kept the amount with the provider: appeal with the ABN.
    expect(classifyDenial(d('CO', '50', { payerType: 'medicare', modifiers: ['GA'] }))).toMatchObject({ remedy: 'appeal', responsibility: 'provider' });
    expect(classifyDenial(d('CO', '50', { payerType: 'medicare', modifiers: ['GA'] })).reason).toMatch(/appeal with the signed ABN/);
    const ga = classifyDenial(d('PR', '50', { payerType: 'medicare', modifiers: ['GA'] }));
    expect(ga.reason).toMatch(/an ABN on file \(GA\)/);
    expect(classifyDenial(d('PR', '96', { payerType: 'medicare', modifiers: ['GY'] })).citations[0]!.title).toMatch(/411\.15/);
    expect(classifyDenial(d('PR', '96', { payerType: 'medicare', modifiers: ['GY'] })).reason).toMatch(/statutorily excluded/);
  });

  it('cites the Medicare manual for Medicare and X12 otherwise', () => {
    expect(classifyDenial(d('CO', '16', { payerType: 'medicare' })).citations[0]!.title).toMatch(/Pub\. 100-04, ch\. 1, section 80\.3\.2/);
    expect(classifyDenial(d('CO', '16')).citations[0]!.title).toMatch(/X12/);
    expect(classifyDenial(d('CO', '151', { payerType: 'medicare' })).citations[0]!.title).toMatch(/ch\. 29/);
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
    const inputs = [d('CO', '16'), d('PR', '1'), d('OA', '23'), d('CO', '22'), d('CO', '45'), d('CO', '253'), d('CO', '50'), d('CO', '1', { pattern: pattern('timely_filing') }), d('OA', '18')];
    const seen = new Set(inputs.map((i) => DenialRemedySchema.parse(withDeadline(classifyDenial(i), {})).remedy));
    // An accepted acknowledgment (999, 277CA) is the one remedy with nothing to do.
    for (const stage of ['999', '277CA'] as const) for (const accepted of [true, false]) seen.add(DenialRemedySchema.parse(withDeadline(classifyAcknowledgment({ stage, accepted, medicare: false }), {})).remedy);
    expect([...seen].sort()).toEqual([...REMEDIES].sort());
  });

  it('never offers an appeal for an acknowledgment: nothing was adjudicated', () => {
    for (const stage of ['999', '277CA'] as const) {
      expect(classifyAcknowledgment({ stage, accepted: true, medicare: true })).toMatchObject({ remedy: 'no_action', appeal_rights: 'no' });
      const rejected = classifyAcknowledgment({ stage, accepted: false, medicare: true });
      expect(rejected).toMatchObject({ remedy: 'correct_and_resubmit', responsibility: 'provider', appeal_rights: 'no' });
      expect(rejected.citations.map((c) => c.title).join(' ')).toMatch(/section 80\.3\.2/);
      expect(classifyAcknowledgment({ stage, accepted: false, medicare: false }).citations).toHaveLength(1);
    }
  });
});
