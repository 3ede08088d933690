import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { remit835 } from '../../testing/x12.js';
import { mutate, prng } from '../../testing/x12_mutate.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

// A patient name that must never come back in an error.
const BASE = remit835(
  [
    'CLP*PCN001*1*150*80*20*MB*ICN0001*11',
    'NM1*QC*1*DOE*JANE****MI*1EG4TE5MK73',
    'SVC*HC:99213:25*150*80**1',
    'DTM*472*20251201',
    'CAS*CO*45*50',
    'CAS*PR*1*20',
    'LQ*HE*N130',
    'CLP*PCN002*4*100*0*0*MB*ICN0002*11',
    'CAS*CO*29*100',
    'PLB*1234567893*20261231*WO:ICN0001*10',
  ],
  { bpr: '70', date: '20260105' },
);

const ACKS = [
  'ISA*00*          *00*          *ZZ*A              *ZZ*B              *260105*1200*^*00501*000000001*0*T*:~GS*FA*A*B*20260105*1200*1*X*005010X231A1~ST*999*0001*005010X231A1~AK1*HC*1*005010X222A1~AK2*837*0001*005010X222A1~IK3*CLM*22*2300*8~CTX*CLM01:PCN001~IK4*5:3*1325*1*X~IK5*R*5~AK9*R*1*1*0~SE*10*0001~GE*1*1~IEA*1*000000001~',
  'ISA*00*          *00*          *ZZ*A              *ZZ*B              *260105*1200*^*00501*000000001*0*T*:~GS*HN*A*B*20260105*1200*1*X*005010X214~ST*277*0001*005010X214~BHT*0085*08*1*20260105*1200*TH~HL*1**20*1~NM1*PR*2*MEDICARE*****PI*1~HL*2*1*21*1~NM1*41*2*CLINIC*****46*S~HL*3*2*19*1~NM1*85*2*CLINIC*****XX*1234567893~HL*4*3*PT~NM1*QC*1*DOE*JANE~TRN*2*PCN001~STC*A7:562:85*20260105*U*150~DTP*472*D8*20251201~SE*15*0001~GE*1*1~IEA*1*000000001~',
];

describe('POST /v1/remittances/explain under mutated input', () => {
  it('answers 200 or 422 (never a 5xx), and never echoes the file in an error, for 300 mutated 835s, 999s and 277CAs', async () => {
    const r = prng(835);
    const statuses = new Map<number, number>();
    const started = Date.now();
    let n = 0;
    // Bounded in count and in time.
    for (; n < 300 && Date.now() - started < 30_000; n++) {
      let text = n % 4 === 3 ? ACKS[(n >> 2) % 2]! : BASE;
      for (let k = 1 + Math.floor(r() * 3); k > 0; k--) text = mutate(text, r);
      const res = await t.request('/v1/remittances/explain?as_of=2026-01-10&locality=1320201', { method: 'POST', body: text, headers: { 'Content-Type': 'application/edi-x12' } });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect([200, 422], `case ${n}: ${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
      if (res.status === 422) {
        expect(res.text).not.toContain('DOE');
        expect(res.body.detail.every((d: object) => !('input' in d))).toBe(true);
      }
    }
    expect(n).toBeGreaterThanOrEqual(100);
    // Both outcomes occur: the mutations reach the reader's refusals and the lenient explanation.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(422) ?? 0).toBeGreaterThan(0);
  });

  it('reads absurd amounts as findings, not failures', async () => {
    const text = remit835(['CLP*A1*1*99999999999999999999.999*1e308*-0*MB*ICN1*11', 'SVC*HC:99213*150*80**1', 'DTM*472*20251201', 'CAS*CO*45*NaN'], { bpr: '1e999' });
    const res = await t.request('/v1/remittances/explain?as_of=2026-01-10', { method: 'POST', body: text, headers: { 'Content-Type': 'application/edi-x12' } });
    expect(res.status).toBe(200);
    const codes = res.body.findings.map((f: { code: string; loc: { segment_id: string } }) => `${f.code}@${f.loc.segment_id}`);
    expect(codes).toEqual(expect.arrayContaining(['unparseable_segment@BPR', 'unparseable_segment@CLP']));
  });
});
