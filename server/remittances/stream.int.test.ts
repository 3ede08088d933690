import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemitClaim, RemitTransaction } from './schemas.js';
import { explainFile } from './service.js';
import { readX12 } from './x12.js';
import { Trace } from '../trace.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { remit835 } from '../../testing/x12.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

// 1,200 claims of one visit each (80 paid, CO-45 50, PR-1 20), every tenth denied CO-16 without a remark.
const claims = Array.from({ length: 1200 }, (_, i) =>
  i % 10 === 9
    ? [`CLP*P${i}*4*150*0*0*MB*ICN${i}*11`, 'SVC*HC:99213*150*0**1', 'DTM*472*20251201', 'CAS*CO*16*150']
    : [`CLP*P${i}*1*150*80*20*MB*ICN${i}*11`, 'SVC*HC:99213*150*80**1', 'DTM*472*20251201', 'CAS*CO*45*50', 'CAS*PR*1*20'],
).flat();
const FILE = remit835(claims, { bpr: String(80 * 1080), date: '20260105' });

describe('an 835 explained as a stream', () => {
  it('reads its transactions lazily: no segment array is held, each pass reads the text again', () => {
    const f = readX12(FILE);
    expect(f.claims).toBe(1200);
    const [tx] = f.transactions;
    expect(typeof Object.getOwnPropertyDescriptor(tx, 'segments')?.get).toBe('function');
    // No data property holds an array (a getter reads the text when asked).
    expect(Object.values(Object.getOwnPropertyDescriptors(tx)).some((d) => Array.isArray(d.value))).toBe(false);
    const ids = [...tx!.each()].map((s) => s.id);
    expect(ids.filter((id) => id === 'CLP')).toHaveLength(1200);
    expect([...tx!.each()].map((s) => s.id)).toEqual(ids);
  });

  it('hands each claim on in file order, linked, and keeps none of them when a sink takes them; the summary and worklist are the whole answer\'s', async () => {
    const snapshot = t.srv.snapshots.snapshot!;
    const seen: { index: number; pcn: string; kept: number; pricing: string | undefined }[] = [];
    const streamed = await explainFile(snapshot, FILE, '2026-01-10', new Trace(snapshot, () => new Date()), { locality: '1320201' }, {
      sink: {
        async claim(tx: RemitTransaction, claim: RemitClaim, index: number) {
          seen.push({ index, pcn: claim.patient_control_number, kept: tx.claims.length, pricing: claim.lines[0]!.pricing?.status });
        },
      },
    });
    expect(seen.map((s) => s.index)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
    expect(seen.map((s) => s.pcn)).toEqual(Array.from({ length: 1200 }, (_, i) => `P${i}`));
    // Nothing kept: the transaction's claims stay empty however many have passed.
    expect(seen.every((s) => s.kept === 0)).toBe(true);
    expect(streamed.transactions[0]!.claims).toEqual([]);
    // Linked before it is handed on (the pricing of the visit's line).
    expect(seen.every((s) => s.pricing !== undefined)).toBe(true);

    const whole = await explainFile(snapshot, FILE, '2026-01-10', new Trace(snapshot, () => new Date()), { locality: '1320201' });
    expect(whole.transactions[0]!.claims).toHaveLength(1200);
    expect(streamed.summary).toEqual(whole.summary);
    expect(streamed.worklist).toEqual(whole.worklist);
    expect(streamed.findings).toEqual(whole.findings);
    // 120 claims denied CO-16 with no remark code: one finding each, by claim.
    expect(whole.findings.filter((f) => f.code === 'remark_code_missing').map((f) => f.loc.claim)).toEqual(Array.from({ length: 120 }, (_, i) => i * 10 + 9));
    expect(whole.summary).toMatchObject({ claims: 1200, service_lines: 1200, adjustments: 2280, totals: { charged: 180000, paid: 86400, patient_responsibility: 21600 } });

    // Over HTTP the answer (about 3 MB) is streamed as it is explained (chunked, no length declared): the same JSON.
    const r = await t.request('/v1/remittances/explain?as_of=2026-01-10&locality=1320201', { method: 'POST', body: FILE, headers: { 'Content-Type': 'application/edi-x12' } });
    const text = r.text;
    expect(r.status).toBe(200);
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.headers['content-length']).toBeUndefined();
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 << 20);
    const body = JSON.parse(text);
    expect(body.summary).toEqual(whole.summary);
    expect(body.transactions[0].claims).toHaveLength(1200);
    expect(body.transactions[0].claims[1199]).toEqual(JSON.parse(JSON.stringify(whole.transactions[0]!.claims[1199])));
  });
});
