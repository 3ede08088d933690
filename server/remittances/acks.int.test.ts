import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIO } from '../../cli/main.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const explain = (body: string) => t.request('/v1/remittances/explain?as_of=2026-08-10', { method: 'POST', body, headers: { 'Content-Type': 'application/edi-x12' } });

const envelope = (gs: string, version: string, body: string[]) =>
  [
    'ISA*00*          *00*          *ZZ*PAYERID        *ZZ*PROVIDERID     *260801*1200*^*00501*000000007*0*P*:',
    `GS*${gs}*PAYERID*PROVIDERID*20260801*1200*7*X*${version}`,
    ...body,
    `SE*${body.length + 1}*0001`,
    'GE*1*7',
    'IEA*1*000000007',
  ].join('~') + '~';

// A 277CA from Medicare for two claims of 2026-07-15: C1 accepted into adjudication (A2:20),
// C2 rejected for invalid information (A7:562, entity 85: the billing provider's identifier).
const CA277 = envelope('HN', '005010X214', [
  'ST*277*0001*005010X214',
  'BHT*0085*08*BATCH1*20260801*1200*TH',
  'HL*1**20*1',
  'NM1*PR*2*MEDICARE*****PI*12202',
  'TRN*1*BATCH1',
  'DTP*050*D8*20260801',
  'DTP*009*D8*20260801',
  'HL*2*1*21*1',
  'NM1*41*2*EXAMPLE CLINIC*****46*SUBMITTER',
  'TRN*2*BATCH1',
  'STC*A1:20*20260801*WQ*650',
  'HL*3*2*19*1',
  'NM1*85*2*EXAMPLE CLINIC*****XX*1234567893',
  'HL*4*3*PT',
  'NM1*QC*1*DOE*JANE****MI*1EG4TE5MK73',
  'TRN*2*C1',
  'STC*A2:20*20260801*WQ*450',
  'REF*1K*ICN1',
  'DTP*472*D8*20260715',
  'HL*5*3*PT',
  'NM1*QC*1*ROE*RICHARD****MI*2EG4TE5MK74',
  'TRN*2*C2',
  'STC*A7:562:85*20260801*U*200',
  'DTP*472*RD8*20260715-20260716',
]);

// A 999 partially accepting a 3-transaction 837 group: 0001 accepted, 0002 rejected (CLM05-2 missing in claim P2).
const ACK999 = envelope('FA', '005010X231A1', [
  'ST*999*0001*005010X231A1',
  'AK1*HC*17*005010X222A1',
  'AK2*837*0001*005010X222A1',
  'IK5*A',
  'AK2*837*0002*005010X222A1',
  'IK3*CLM*22*2300*8',
  'CTX*CLM01:P2',
  'IK4*5:2*1331*1',
  'IK5*R*5',
  'AK9*P*2*2*1',
]);

describe('POST /v1/remittances/explain: 999 and 277CA acknowledgments', () => {
  it('explains a 277CA claim by claim: accepted, or rejected with no appeal and the payer\'s filing deadline to resubmit', async () => {
    const r = await explain(CA277);
    expect(r.status, r.text).toBe(200);
    expect(r.body.summary).toMatchObject({ transactions: 0, claims: 0, acknowledgments: 1 });
    const [a] = r.body.acknowledgments;
    expect(a).toMatchObject({ kind: '277CA', control_number: '0001', version: '005010X214', date: '2026-08-01', payer: { name: 'MEDICARE', slug: 'medicare_ffs' } });
    const [c1, c2] = a.claims;
    expect(c1).toMatchObject({ patient_control_number: 'C1', payer_claim_control_number: 'ICN1', charged: 450, service_from: '2026-07-15', accepted: true, billing_provider: { npi: '1234567893' } });
    expect(c1.remedy).toMatchObject({ remedy: 'no_action', appeal_rights: 'no', deadline: null });
    expect(c2).toMatchObject({ patient_control_number: 'C2', charged: 200, service_from: '2026-07-15', service_to: '2026-07-16', accepted: false });
    expect(c2.statuses).toEqual([{ category: 'A7', category_meaning: expect.stringMatching(/rejected for invalid information/), status_code: '562', entity: '85', date: '2026-08-01', action: 'U' }]);
    // Medicare: 12 months from the date of service (2026-07-15 -> 2027-07-15), 339 days after 2026-08-10.
    expect(c2.remedy).toMatchObject({ remedy: 'correct_and_resubmit', responsibility: 'provider', appeal_rights: 'no', deadline: { kind: 'resubmit_by', date: '2027-07-15', days_remaining: 339 } });
    expect(c2.remedy.citations.map((x: { title: string }) => x.title)).toEqual([expect.stringMatching(/^X12 Claim Status Category Codes/), expect.stringMatching(/ch\. 1, section 80\.3\.2/)]);
    expect(r.body.worklist).toEqual([{ source: '277CA', payer: 'medicare_ffs', group: 'A7', reason: '562', remedy: 'correct_and_resubmit', count: 1, amount: 200, earliest_deadline: '2027-07-15' }]);
    // Status code 562 and entity 85 are given as codes: the X12 lists that describe them are not loaded.
    expect(r.body.findings).toEqual([expect.objectContaining({ code: 'status_code_not_described', severity: 'info', loc: expect.objectContaining({ segment_id: 'STC' }) })]);
  });

  it('explains a 999 transaction by transaction, each segment and element error in words, and the claim it names', async () => {
    const r = await explain(ACK999);
    expect(r.status, r.text).toBe(200);
    const [a] = r.body.acknowledgments;
    expect(a).toMatchObject({
      kind: '999',
      acknowledged_group: { functional_id: 'HC', control_number: '17', version: '005010X222A1' },
      group_status: { code: 'P', meaning: 'partially accepted: at least one transaction set was rejected', transactions_included: 2, transactions_received: 2, transactions_accepted: 1, errors: [] },
      payer: null,
      claims: [],
    });
    const [ok, bad] = a.transactions;
    expect(ok).toMatchObject({ set_id: '837', control_number: '0001', status: { code: 'A', meaning: 'accepted' }, errors: [], segment_errors: [], remedy: { remedy: 'no_action' } });
    expect(bad).toMatchObject({ control_number: '0002', status: { code: 'R', meaning: 'rejected' }, errors: [{ code: '5', meaning: 'one or more segments in error' }], claims: ['P2'] });
    expect(bad.segment_errors).toEqual([
      {
        segment_id: 'CLM',
        position: 22,
        loop: '2300',
        code: '8',
        meaning: 'segment has data element errors',
        context: ['CLM01:P2'],
        element_errors: [{ position: '5:2', reference: '1331', code: '1', meaning: 'required data element missing', bad_value: null }],
      },
    ]);
    expect(bad.remedy).toMatchObject({ remedy: 'correct_and_resubmit', appeal_rights: 'no', deadline: null });
    expect(r.body.worklist).toEqual([{ source: '999', payer: null, group: 'R', reason: '5', remedy: 'correct_and_resubmit', count: 1, amount: 0, earliest_deadline: null }]);
  });

  it('reads both in `rcm remit explain` as a person reads them', async () => {
    const dir = t.dataDir;
    const o = { out: '', err: '' };
    const io: CliIO = { isTTY: false, env: { RCM_DATA_DIR: dir }, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
    await writeFile(join(dir, 'day.277'), CA277);
    await writeFile(join(dir, 'day.999'), ACK999);
    expect(await main(['remit', 'explain', join(dir, 'day.277'), join(dir, 'day.999'), '--as-of', '2026-08-10'], io), o.err).toBe(0);
    expect(o.out).toContain('277CA of 2026-08-01 from MEDICARE (medicare_ffs)');
    expect(o.out).toContain('Claim C2 ($200.00): rejected: A7:562 acknowledgement/rejected for invalid information named in the status details -> correct and resubmit, resubmit by 2027-07-15 (339 days); the amount is the provider\'s');
    expect(o.out).toContain('837 0002: rejected (claims P2) -> correct and resubmit');
    expect(o.out).toContain('segment CLM at position 22: segment has data element errors');
    expect(o.out).toContain('element CLM05 (1331): required data element missing');
  });
});
