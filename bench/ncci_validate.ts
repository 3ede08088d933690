import { benchRow, load, paired } from './lib.js';
import { seededPair } from './procs.js';

/** Codes of the seeded NCCI, fee schedule and add-on files, so every check family has work to do. */
const CODES = ['99213', '99215', '99417', '11042', '97597', '97598', '20610', '20604', '0001U', '0029U', '0030U', '36415', '80053', '93000', '22551', '22552', '11000', '11001', '99205', 'J9035'];
const MODS = [[], ['25'], [], ['59'], [], ['XS'], ['RT'], ['LT'], [], [], ['91'], [], [], [], [], [], [], [], [], []];

/**
 * `POST /v1/ncci/validate` with 20-line claims (190 line pairs each, plus MUE and add-on checks)
 * over the seeds, warm, 16 connections, beside a bare Koa run (median of 3 alternating rounds).
 * Target: >= 0.3x bare; lines checked per second is req/s x 20.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const { key, api, bare, stop } = await seededPair('rcm-bench-validate-');
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  // Eight claims: the same lines rotated and with different units, so no two bodies are equal.
  const bodies = Array.from({ length: 8 }, (_, k) =>
    JSON.stringify({
      date_of_service: '2026-08-01',
      setting: 'prac',
      lines: CODES.map((_, i) => ({ code: CODES[(i + k) % CODES.length], modifiers: MODS[i], units: 1 + ((i + k) % 3) })),
    }),
  );
  const paths = bodies.map(() => '/v1/ncci/validate');
  try {
    const opts = { paths, bodies, method: 'POST', headers, seconds: 4, connections: 16 };
    await load('warmup', api.url, { ...opts, seconds: 2 });
    await load('warmup bare', bare.url, { paths, seconds: 1, connections: 16 });
    const p = await paired(
      3,
      () => load('bare', bare.url, { paths, seconds: 4, connections: 16 }),
      () => load('validate', api.url, opts),
    );
    const row = benchRow('validate a 20-line claim (190 pairs) (median of 3)', p.subject, p.base, p.ratio);
    return [{ ...row, 'lines/s': p.subject.requests_per_s * 20 }];
  } finally {
    await stop();
  }
}
