import { benchRow, load, paired, shuffle, warmPaired } from './lib.js';
import { seededPair } from './procs.js';

const CCNS = ['050454', '011300', '330101', '013300', '010001', '051300'];
const CODES = ['99213', '64490', '15823', '70450', 'G0463', '36475', '93000', '99214'];
const PAYERS = ['medicare_ffs', 'uhc', 'aetna', 'medi_cal'];

/** Resolve questions over the seeded CCNs, codes and payers on `dates`, shuffled. */
function questions(dates: string[], seed: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const date_of_service of dates) for (const ccn of CCNS) for (const [i, cpt] of CODES.entries()) out.push({ ccn, cpt, payer: PAYERS[(i + CCNS.indexOf(ccn)) % PAYERS.length], date_of_service });
  return shuffle(out, seed);
}
const bodies = (dates: string[], seed: number) => questions(dates, seed).map((q) => JSON.stringify(q));

/** The n-th of many distinct ICD-10-CM shaped codes (`Z07.00A1`), to make every answer new without touching a layer's key. */
const dx = (n: number) => `Z${String(n % 100).padStart(2, '0')}.${Math.floor(n / 100).toString(36).toUpperCase().padStart(4, '0')}`;

const day = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * `POST /v1/knowledge/resolve` and `GET /v1/policies` over the seeds, beside the bare Koa route
 * of the same run. Warm: 48 questions (6 CCNs x 8 codes, a payer each) again and again (the
 * answer cache), and the same questions each with a new diagnosis code (every answer new, the six
 * layers from their caches); 16 connections, medians of 3 alternating rounds (target >= 0.5x
 * bare). Cold: every request a new date of service (no layer cached; the snapshot's indexes are
 * warm), at 4 connections, for its p99 (target < 25 ms). Policies: the list by payer, code and
 * state. Rosters and overrides at two CCNs make L2/L4 read tenant state for real.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const { key, api, bare, stop } = await seededPair('rcm-bench-knowledge-');
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const bareHeaders = { 'Content-Type': 'application/json' };
  const path = '/v1/knowledge/resolve';
  const post = (b: string[], o: { seconds?: number; amount?: number; connections: number }, h: Record<string, string> = headers) => ({ paths: [path], bodies: b, method: 'POST', headers: h, ...o });
  const rows: Record<string, string | number>[] = [];
  try {
    for (const ccn of ['050454', '330101']) {
      const send = (p: string, body: unknown, method = 'POST') => fetch(`${api.url}${p}`, { method, headers, body: JSON.stringify(body) });
      await send(`/v1/facilities/${ccn}`, {}, 'PUT');
      await send(`/v1/facilities/${ccn}/payers`, { payer_slug: 'uhc', network_status: 'in_network' });
      await send(`/v1/facilities/${ccn}/pa-overrides`, { payer_slug: 'uhc', code: '70450', pa_required: true });
    }
    const warm = bodies(['2026-03-02'], 7);
    const first = await fetch(`${api.url}${path}`, { method: 'POST', headers, body: warm[0] });
    if (first.status !== 200) throw new Error(`resolve answered ${first.status}: ${await first.text()}`);
    // JIT warmup on dates measured in neither case.
    await load('warmup', api.url, post(bodies([day(900), day(901)], 3), { seconds: 3, connections: 16 }));
    await load('warmup bare', bare.url, post(warm, { seconds: 2, connections: 16 }, bareHeaders));
    await load('fill', api.url, post(warm, { seconds: 1, connections: 16 }));
    const p = await paired(
      3,
      () => load('bare', bare.url, post(warm, { seconds: 4, connections: 16 }, bareHeaders)),
      () => load('warm', api.url, post(warm, { seconds: 4, connections: 16 })),
    );
    rows.push(benchRow(`resolve, the same ${warm.length} questions again (answer cache; median of 3)`, p.subject, p.base, p.ratio));
    // Every answer new (each request its own diagnosis code, which no layer's key holds): the six layers from their caches.
    const qs = questions(['2026-03-02'], 7);
    const rounds = [0, 1, 2, 3].map((r) => Array.from({ length: 40_000 }, (_, n) => JSON.stringify({ ...qs[n % qs.length], dx_codes: [dx(r * 40_000 + n)] })));
    await load('warmup layers', api.url, post(rounds[3]!, { seconds: 2, connections: 16 }));
    let round = 0;
    const l = await paired(
      3,
      () => load('bare', bare.url, post(rounds[0]!, { seconds: 4, connections: 16 }, bareHeaders)),
      () => load('layers', api.url, post(rounds[round++]!, { seconds: 4, connections: 16 })),
    );
    rows.push(benchRow(`resolve, every answer new over cached layers (${qs.length} questions x new dx_codes; median of 3)`, l.subject, l.base, l.ratio));
    // Cold: 3,000 requests, each on its own date (L1-L6 computed; the snapshot's indexes are warm).
    const cold = bodies(Array.from({ length: 63 }, (_, n) => day(n)), 11).slice(0, 3000);
    const b = await load('bare', bare.url, post(cold, { amount: cold.length, connections: 4 }, bareHeaders));
    const c = await load('cold', api.url, post(cold, { amount: cold.length, connections: 4 }));
    rows.push(benchRow(`resolve cold, ${cold.length} requests each a new date (4 connections; p99 target < 25 ms)`, c, b, c.requests_per_s / b.requests_per_s));
    const list = shuffle(
      ['medicare_ffs', 'medicare', 'uhc'].flatMap((payer) => ['', '&code=64490', '&code=15823', '&state=OH', '&state=CA', '&q=facet'].map((f) => `/v1/policies?payer=${payer}${f}`)),
      5,
    );
    rows.push(await warmPaired(`policies list, ${list.length} filters (answer cache; median of 3)`, api.url, bare.url, list, { 'X-API-Key': key }));
  } finally {
    await stop();
  }
  return rows;
}
