import { registerBenchFacilities, shuffle, warmPaired } from './lib.js';
import { seededPair } from './procs.js';

/**
 * Prior-auth check, warm, 16 connections, each beside a bare Koa run (medians of 3 alternating
 * rounds): the resolution (persist=false, answered from the cache where it may be) without and
 * with ccn (facility, overrides and roster). Target: resolution >= 0.5x bare. The persisted check
 * and roster upserts (durable writes) are measured in the `writes` area.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const { key, api, bare, stop } = await seededPair('rcm-bench-pa-');
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const ccns = ['050454', '330101', '010001'];
  const payers = ['medicare_ffs', 'uhc', 'aetna', 'medi_cal', 'masshealth', 'cigna'];
  const codes = ['64490', '15823', '36475', '99213', '70553', '97110', '22551', '64568'];
  const rows: Record<string, string | number>[] = [];
  try {
    await registerBenchFacilities(api.url, headers, ccns);
    const q = (extra: string) => shuffle(payers.flatMap((p) => codes.map((c) => `/v1/prior-auth/check?payer=${p}&code=${c}&date_of_service=2026-03-02${extra}`)), 7);
    const noCcn = q('&place_of_service=22&persist=false');
    const withCcn = shuffle(ccns.flatMap((ccn) => q(`&ccn=${ccn}&persist=false`)), 11);
    for (const [label, paths] of [
      [`resolution without ccn, ${noCcn.length} payer x code (median of 3)`, noCcn],
      [`resolution with ccn, ${withCcn.length} ccn x payer x code (median of 3)`, withCcn],
    ] as const) {
      rows.push(await warmPaired(label, api.url, bare.url, paths, headers));
    }
  } finally {
    await stop();
  }
  return rows;
}
