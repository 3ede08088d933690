import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payerKnowledge, type PayerKnowledge } from '../../datasets/payers/queries.js';
import { CARC_CLASS, CARC_CLASSES } from '../../lib/vocabulary/carc.js';
import { ADJUSTMENT_GROUPS } from '../../lib/vocabulary/adjustment_groups.js';
import { openSeedSnapshot } from '../../testing/datasets.js';
import { remedyDeadline } from './deadline.js';
import { classifyAcknowledgment, classifyDenial, denialFacts, DenialRemedySchema, REMEDIES, withDeadline, type DenialFacts } from './remedy.js';
import { DENIAL_TABLE } from './table.js';

let k: PayerKnowledge;
let close: () => void;
beforeAll(async () => {
  const snap = await openSeedSnapshot(['payers']);
  close = () => snap.close();
  k = await payerKnowledge(snap);
});
afterAll(() => close());

const f = (group: string | null, carc: string | null, more: Partial<DenialFacts> = {}): DenialFacts => denialFacts({ group, carc, amount: 10, ...more });
const medicare = { payerType: 'medicare', payer: 'medicare_ffs' } as const;
/** The remedy with its deadline, as a remittance dated `notice` (DTM*405 the same day) for a service on `dos` answers it. */
function dated(facts: DenialFacts, o: { payer?: string; notice?: string; dos?: string; asOf?: string } = {}) {
  const c = classifyDenial(facts, k);
  const payer = o.payer ? k.payers.get(o.payer)! : facts.payer ? k.payers.get(facts.payer)! : null;
  const { deadline, choice } = remedyDeadline(c, { payers: k, payer, dateOfService: o.dos ?? null, noticeDate: o.notice ?? null, determinationDate: o.notice ?? null, asOf: o.asOf ?? '2026-08-10' });
  return withDeadline(choice, deadline, facts.crossoverPayer);
}

describe('the denial rules table: guards that hold whatever the code or payer', () => {
  it('an adjustment of zero or less is never appealed: OA-94 -9.00 (a payment increase) and a $0.00 CO-42 are no_action', () => {
    expect(classifyDenial(f('OA', '94', { amount: -9 }))).toMatchObject({ remedy: 'no_action', rule_id: 'guard.zero_or_negative' });
    expect(classifyDenial(f('CO', '42', { amount: 0, ...medicare }))).toMatchObject({ remedy: 'no_action' });
    // Every class, group and payer type: an amount of 0 or less never gets `appeal`.
    for (const cls of CARC_CLASSES) {
      const code = Object.entries(CARC_CLASS).find(([, c]) => c === cls)![0];
      for (const group of Object.keys(ADJUSTMENT_GROUPS)) for (const payerType of ['medicare', 'commercial', 'medicaid', null]) for (const amount of [0, -1]) expect(classifyDenial(f(group, code, { amount, payerType })).remedy).not.toBe('appeal');
    }
  });

  it("a reversal's (CLP02 22) and a predetermination's (25) adjustments are no_action", () => {
    expect(classifyDenial(f('CO', '45', { claimStatus: '22' })).remedy).toBe('no_action');
    expect(classifyDenial(f('CO', '50', { claimStatus: '25', ...medicare })).remedy).toBe('no_action');
  });

  it('OA-23 on a secondary or tertiary remittance (CLP02 2, 3, 20, 21) reports the prior payer, already posted: no_action, not "bill other payer"', () => {
    for (const claimStatus of ['2', '3', '20', '21']) expect(classifyDenial(f('OA', '23', { claimStatus }))).toMatchObject({ remedy: 'no_action', rule_id: 'guard.prior_payer_reported' });
    // On a claim processed as primary the payer wants the other payer's remittance; CO-23 with N36 too.
    expect(classifyDenial(f('OA', '23', { claimStatus: '1' })).remedy).toBe('send_documents');
    expect(classifyDenial(f('CO', '23', { rarcs: ['N36'] })).remedy).toBe('send_documents');
  });

  it('a Qualified Medicare Beneficiary (N781-N783) is never billed: the subsequent payer, or written off (SSA 1902(n)(3)(B))', () => {
    const r = classifyDenial(f('PR', '2', { rarcs: ['N782'], ...medicare }));
    expect(r).toMatchObject({ remedy: 'bill_other_payer', responsibility: 'other_payer', rule_id: 'guard.qmb' });
    expect(r.citations[0]!.title).toMatch(/1902\(n\)\(3\)\(B\)/);
  });

  it('GZ never bills the patient: PR-50 or PR-96 on a GZ line is the payer’s error, corrected by a reopening within a year (SSA 1879; MM7228)', () => {
    for (const carc of ['50', '96']) {
      const r = dated(f('PR', carc, { modifiers: ['GZ'], ...medicare }), { notice: '2026-08-03' });
      expect(r).toMatchObject({ remedy: 'reopen', responsibility: 'provider', rule_id: 'guard.gz_not_patient' });
      // 42 CFR 405.980(c)(1): one year from the initial determination (DTM*405 2026-08-03).
      expect(r.deadline).toMatchObject({ kind: 'reopen_by', date: '2027-08-03', days_remaining: 358 });
      expect(r.citations.map((c) => c.title).join(' ')).toMatch(/1879.*MM7228/);
    }
  });

  it('a crossover (CLP02 19-21, MA18 or N89, NM1*TT) waits for the supplemental payer before the patient is billed, naming it', () => {
    const tt = { name: 'AARP MEDIGAP', id: '36273' };
    expect(dated(f('PR', '2', { claimStatus: '19', crossoverPayer: tt, ...medicare }))).toMatchObject({ remedy: 'wait_for_other_payer', other_payer: tt, deadline: null });
    expect(classifyDenial(f('PR', '1', { claimStatus: '1', rarcs: ['MA18'], ...medicare })).remedy).toBe('wait_for_other_payer');
    expect(classifyDenial(f('PR', '1', { claimStatus: '1', ...medicare })).remedy).toBe('bill_patient');
  });
});

describe('the denial rules table: Medicare rows, each worked from its citation', () => {
  it('CO-97 by the linked PTP edit: indicator 1 reopen (a modifier the record supports), 0 not appealable, not in force appeal, none review', () => {
    const one = dated(f('CO', '97', { ptp: '1', ...medicare }), { notice: '2026-08-03' });
    expect(one).toMatchObject({ remedy: 'reopen', rule_id: 'bundling.ptp_modifier_allowed.medicare' });
    expect(one.deadline).toMatchObject({ kind: 'reopen_by', date: '2027-08-03' });
    expect(classifyDenial(f('CO', '97', { ptp: '0', ...medicare }))).toMatchObject({ remedy: 'not_appealable', appeal_rights: 'no' });
    expect(classifyDenial(f('CO', '236', { ptp: 'not_in_force', ...medicare })).remedy).toBe('appeal');
    expect(classifyDenial(f('CO', '97', { ptp: '9', ...medicare })).remedy).toBe('review');
    expect(classifyDenial(f('CO', '97', medicare))).toMatchObject({ remedy: 'review', responsibility: 'undetermined', deadline: null });
    // A global-surgery bundling (M144): a reopening to add 24, 25, 57 or 79 (ch. 12 section 40).
    expect(classifyDenial(f('CO', '97', { rarcs: ['M144'], ...medicare })).rule_id).toBe('bundling.global_surgery.medicare');
  });

  it('CO-50 with M76 (diagnosis missing or invalid) is a reopening; CO-50 with N115 an appeal by notice + 5 + 120 days, saying a miscoded diagnosis is reopened instead', () => {
    expect(classifyDenial(f('CO', '50', { rarcs: ['M76'], ...medicare }))).toMatchObject({ remedy: 'reopen', rule_id: 'coverage.diagnosis_missing.medicare' });
    const r = dated(f('CO', '50', { rarcs: ['N115'], ...medicare }), { notice: '2026-08-03' });
    expect(r.remedy).toBe('appeal');
    expect(r.reason).toMatch(/corrected by a reopening instead/);
    // 42 CFR 405.942(a): 2026-08-03 + 5 days presumed receipt = 2026-08-08, + 120 days = 2026-12-06, a
    // Sunday: the next business day 2026-12-07 (ch. 1 section 70); 119 days after 2026-08-10.
    expect(r.deadline).toMatchObject({ kind: 'appeal_by', date: '2026-12-07', days_remaining: 119 });
  });

  it('CO-151 by the MUE adjudication indicator: 1 reopen on separate lines, 2 not appealable unless reported in error, 3 appeal with records', () => {
    expect(classifyDenial(f('CO', '151', { mai: 1, ...medicare }))).toMatchObject({ remedy: 'reopen' });
    expect(classifyDenial(f('CO', '151', { mai: 1, ...medicare })).reason).toMatch(/whole line was denied/);
    expect(classifyDenial(f('CO', '151', { mai: 2, ...medicare }))).toMatchObject({ remedy: 'not_appealable', appeal_rights: 'conditional', appeal_condition: expect.stringMatching(/reported in error/) });
    expect(classifyDenial(f('CO', '151', { mai: 3, ...medicare }))).toMatchObject({ remedy: 'appeal', appeal_rights: 'yes' });
    expect(classifyDenial(f('CO', '151', medicare)).remedy).toBe('review');
  });

  it('CO-253 (sequestration) is a contractual adjustment with no appeal rights and no deadline', () => {
    expect(dated(f('CO', '253', medicare), { notice: '2026-08-03' })).toMatchObject({ remedy: 'contractual_adjustment', appeal_rights: 'no', deadline: null });
  });

  it('CO-29 at Medicare is not appealable (42 CFR 405.926(n)); at a commercial plan or Medicaid, a reconsideration only with proof of timely submission', () => {
    const m = classifyDenial(f('CO', '29', medicare));
    expect(m).toMatchObject({ remedy: 'not_appealable', appeal_rights: 'no' });
    expect(m.citations[0]!.title).toMatch(/405\.926\(n\).*ch\. 1, section 70\.7/);
    expect(classifyDenial(f('CO', '29', { payerType: 'commercial' }))).toMatchObject({ remedy: 'appeal', appeal_rights: 'conditional', appeal_condition: expect.stringMatching(/proof/) });
    expect(classifyDenial(f('CO', '29', { payerType: 'medicaid' })).citations[0]!.title).toMatch(/447\.45/);
  });

  it('a contractual reduction gives no deadline ("contractual adjustment by ..." was an appeal date); contract disputes without a provider dispute rule are conditional with no date', () => {
    expect(dated(f('CO', '45', { payerType: 'commercial', payer: 'uhc' }), { notice: '2021-02-04' })).toMatchObject({ remedy: 'contractual_adjustment', deadline: null });
    // UHC's only loaded level is the member's ERISA appeal: it does not date the provider's timely-filing dispute.
    const tf = dated(f('CO', '29', { payerType: 'commercial', payer: 'uhc' }), { notice: '2026-08-03' });
    expect(tf).toMatchObject({ remedy: 'appeal', appeal_rights: 'conditional', deadline: null });
    // A coverage denial is the member's benefit: the member appeal dates it (180 days from the notice, no receipt days).
    expect(dated(f('CO', '50', { payerType: 'commercial', payer: 'uhc' }), { notice: '2026-08-03' }).deadline).toMatchObject({ kind: 'appeal_by', date: '2027-01-30' });
  });

  it('documentation: CO-251 and CO-16 with a documentation remark (N706) send documents; CO-16 alone is corrected and resubmitted by the filing limit', () => {
    expect(classifyDenial(f('CO', '251', { rarcs: ['N206'], ...medicare })).remedy).toBe('send_documents');
    expect(classifyDenial(f('CO', '16', { rarcs: ['N706'], ...medicare })).remedy).toBe('send_documents');
    // Medicare's 12-month limit from a 2026-02-16 service: 2027-02-16, a Tuesday (42 CFR 424.44(a)(1)).
    expect(dated(f('CO', '16', { rarcs: ['N257'], ...medicare }), { dos: '2026-02-16' })).toMatchObject({ remedy: 'correct_and_resubmit', deadline: { kind: 'resubmit_by', date: '2027-02-16' } });
  });

  it('what the review found going to appeal does not: CO-131, CO-24, CO-42, CO-A2, CO-59, PI-104 are write-offs; no code without a rule is appealed', () => {
    for (const [g, c] of [['CO', '131'], ['CO', '24'], ['CO', '42'], ['CO', 'A2'], ['CO', '59'], ['PI', '104']] as const) expect(classifyDenial(f(g, c)).remedy).toBe('contractual_adjustment');
    expect(classifyDenial(f('CO', 'A1'))).toMatchObject({ remedy: 'review', rule_id: 'informational' });
    // CO-167 and B15 have rules (the links and the table agree).
    expect(classifyDenial(f('CO', '167', medicare)).rule_id).toBe('coverage.medicare');
    expect(classifyDenial(f('CO', 'B15', medicare)).rule_id).toBe('add_on');
  });

  it('Medicare Advantage (CLP06 16): a reconsideration or contract dispute, conditional, with no date unless a curated rule gives one', () => {
    expect(dated(f('CO', '50', { payerType: 'medicare_advantage' }), { notice: '2026-08-03' })).toMatchObject({ remedy: 'appeal', appeal_rights: 'conditional', deadline: null });
  });

  it('the fallback is review, never appeal: an unmapped payer’s medical-necessity denial', () => {
    expect(classifyDenial(f('CO', '50'))).toMatchObject({ remedy: 'review', responsibility: 'undetermined', appeal_rights: 'conditional', deadline: null, rule_id: 'review' });
  });
});

describe('the denial rules table: its shape', () => {
  it('every row cites a source with a URL, and the last row matches anything', () => {
    for (const r of DENIAL_TABLE) {
      expect(r.citations.length, r.id).toBeGreaterThan(0);
      for (const c of r.citations) expect(c.url, r.id).toMatch(/^https:\/\//);
    }
    expect(DENIAL_TABLE.at(-1)!.when).toEqual({});
    expect(new Set(DENIAL_TABLE.map((r) => r.id)).size).toBe(DENIAL_TABLE.length);
  });

  it('a payer’s curated pattern becomes a row ahead of the generic ones, citing the pattern', () => {
    const r = classifyDenial(f('CO', '97', { rarcs: ['M15'], ptp: '1', ...medicare }), k);
    expect(r.rule_id).toBe('payer:medicare_ffs:CO-97/M15 > bundling.ptp_modifier_allowed.medicare');
    expect(r.citations[0]!.title).toMatch(/NCCI Policy Manual/);
    // No pattern for this remark: the generic row alone.
    expect(classifyDenial(f('CO', '97', { ptp: '1', ...medicare }), k).rule_id).toBe('bundling.ptp_modifier_allowed.medicare');
  });

  it('answers only the documented remedies, every one of them reachable', () => {
    const inputs = [
      f('PR', '1'),
      f('CO', '45'),
      f('CO', '16'),
      f('CO', '97', { ptp: '1', ...medicare }),
      f('CO', '50', medicare),
      f('CO', '29', medicare),
      f('CO', '22'),
      f('PR', '2', { claimStatus: '19' }),
      f('CO', '251'),
      f('CO', '129'),
      f('OA', '18'),
      f('OA', '94', { amount: -9 }),
      f('CO', '50'),
    ];
    const seen = new Set(inputs.map((i) => DenialRemedySchema.parse(withDeadline(classifyDenial(i))).remedy));
    expect([...seen].sort()).toEqual([...REMEDIES].sort());
  });

  it('never offers an appeal for an acknowledgment: nothing was adjudicated', () => {
    for (const stage of ['999', '277CA'] as const) {
      expect(classifyAcknowledgment({ stage, accepted: true, medicare: true })).toMatchObject({ remedy: 'no_action', appeal_rights: 'no' });
      const rejected = classifyAcknowledgment({ stage, accepted: false, medicare: true });
      expect(rejected).toMatchObject({ remedy: 'correct_and_resubmit', responsibility: 'provider', appeal_rights: 'no', deadline: 'resubmit_by' });
      expect(rejected.citations.map((c) => c.title).join(' ')).toMatch(/section 80\.3\.2/);
    }
  });
});
