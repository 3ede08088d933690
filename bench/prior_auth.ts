import { benchRow, load, shuffle, warmPaired } from './lib.js';
import { seededPair } from './procs.js';

/**
 * Prior-auth check, warm, 16 connections, each beside a bare Koa run (medians of 3 alternating
 * rounds): the resolution (persist=false, answered from the cache where it may be) without and
 * with ccn (facility, overrides and roster), then the persisted check (a durable insert per
 * request), then roster upserts (a durable upsert per request). Target: resolution >= 0.5x bare.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const { key, api, bare, stop } = await seededPair('rcm-bench-pa-');
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const ccns = ['050454', '330101', '010001'];
  const payers = ['medicare_ffs', 'uhc', 'aetna', 'medi_cal', 'masshealth', 'cigna'];
  const codes = ['64490', '15823', '36475', '99213', '70553', '97110', '22551', '64568'];
  const rows: Record<string, string | number>[] = [];
  try {
    // Registrations with a roster entry and an override each, so ccn checks walk tier 0 for real.
    for (const ccn of ccns) {
      const post = (path: string, body: unknown, method = 'POST') => fetch(`${api.url}${path}`, { method, headers, body: JSON.stringify(body) });
      await post(`/v1/facilities/${ccn}`, {}, 'PUT');
      await post(`/v1/facilities/${ccn}/payers`, { payer_slug: 'uhc', network_status: 'in_network' });
      await post(`/v1/facilities/${ccn}/pa-overrides`, { payer_slug: 'uhc', code: '70553', pa_required: true });
    }
    const q = (extra: string) => shuffle(payers.flatMap((p) => codes.map((c) => `/v1/prior-auth/check?payer=${p}&code=${c}&date_of_service=2026-03-02${extra}`)), 7);
    const noCcn = q('&place_of_service=22&persist=false');
    const withCcn = shuffle(ccns.flatMap((ccn) => q(`&ccn=${ccn}&persist=false`)), 11);
    for (const [label, paths] of [
      [`resolution without ccn, ${noCcn.length} payer x code (median of 3)`, noCcn],
      [`resolution with ccn, ${withCcn.length} ccn x payer x code (median of 3)`, withCcn],
    ] as const) {
      rows.push(await warmPaired(label, api.url, bare.url, paths, headers));
    }
    const persisted = shuffle(ccns.flatMap((ccn) => q(`&ccn=${ccn}`)), 13);
    rows.push(benchRow('persisted check with ccn (one durable insert each)', await load('persisted', api.url, { paths: persisted, headers, seconds: 4, connections: 16 })));
    const upserts = ccns.flatMap((ccn) => payers.map((p, i) => ({ path: `/v1/facilities/${ccn}/payers`, body: JSON.stringify({ payer_slug: p, network_status: i % 2 ? 'in_network' : 'unknown', notes: `bench ${i}` }) })));
    rows.push(
      benchRow(
        `roster upsert, ${upserts.length} facility x payer (one durable upsert each)`,
        await load('upsert', api.url, { paths: upserts.map((u) => u.path), bodies: upserts.map((u) => u.body), method: 'POST', headers, seconds: 4, connections: 16 }),
      ),
    );
  } finally {
    await stop();
  }
  return rows;
}
