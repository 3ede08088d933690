import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { benchRow, load, type LoadResult, median } from './lib.js';
import { seededPair, spawnBare } from './procs.js';

/** Codes of the seeded NCCI, fee schedule and add-on files, so every check family has work to do. */
const CODES = ['99213', '99215', '99417', '11042', '97597', '97598', '20610', '20604', '0001U', '0029U', '0030U', '36415', '80053', '93000', '22551', '22552', '11000', '11001', '99205', 'J9035'];
const MODS = [[], ['25'], [], ['59'], [], ['XS'], ['RT'], ['LT'], [], [], ['91'], [], [], [], [], [], [], [], [], []];

/**
 * `POST /v1/ncci/validate` with 20-line claims (190 line pairs each, plus MUE and add-on checks)
 * over the seeds, 16 connections, beside two baselines in alternating rounds (medians of 3): the
 * bare Koa JSON route (a 30-byte answer), and a bare Koa route that reads and parses the same
 * claim body and answers a real validate answer, precomputed (14 KB: every edit and message of
 * the claim), as the PTP bench compares with a canned answer of the same size. Two workloads:
 * eight claims sent again and again (after the first of each, the answer cache answers), and
 * 20,000 distinct claims (each date of service and units pattern new, so each is checked in
 * full). Target: >= 0.5x the same-size baseline. Lines checked per second is req/s x 20.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const { key, api, bare, stop, dir } = await seededPair('rcm-bench-validate-');
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const claim = (k: number, dos: string) =>
    JSON.stringify({
      date_of_service: dos,
      setting: 'prac',
      lines: CODES.map((_, i) => ({ code: CODES[(i + k) % CODES.length], modifiers: MODS[i], units: 1 + (((i + k) >> (i % 3)) % 3) })),
    });
  // Eight claims: the same lines rotated and with different units, so no two bodies are equal.
  const repeated = Array.from({ length: 8 }, (_, k) => claim(k, '2026-08-01'));
  // 20,000: 8 rotations x 2,500 dates of service (2019-2025), all in the loaded NCCI quarters' reach.
  const distinct = Array.from({ length: 20_000 }, (_, n) => claim(n % 8, new Date(Date.UTC(2019, 0, 1) + Math.floor(n / 8) * 86_400_000).toISOString().slice(0, 10)));
  const answerFile = join(dir, 'validate-answer.json');
  const answer = await fetch(`${api.url}/v1/ncci/validate`, { method: 'POST', headers, body: repeated[0] });
  if (answer.status !== 200) throw new Error(`validate answered ${answer.status}`);
  await writeFile(answerFile, Buffer.from(await answer.arrayBuffer()));
  const same = await spawnBare(['answer', answerFile]);
  const rows: Record<string, string | number>[] = [];
  try {
    for (const [label, bodies] of [
      ['8 claims sent again and again (the answer cache)', repeated],
      ['20,000 distinct claims, each checked in full', distinct],
    ] as const) {
      const paths = bodies.map(() => '/v1/ncci/validate');
      const opts = { paths, bodies: [...bodies], method: 'POST', headers, seconds: 4, connections: 16 };
      const sameOpts = { paths, bodies: [...bodies], method: 'POST', headers: { 'Content-Type': 'application/json' }, seconds: 4, connections: 16 };
      if (bodies === repeated) await load('warmup', api.url, { ...opts, seconds: 2 });
      await load('warmup bare', bare.url, { paths, seconds: 1, connections: 16 });
      await load('warmup same', same.url, { ...sameOpts, seconds: 1 });
      const rounds: { bare: LoadResult; same: LoadResult; validate: LoadResult }[] = [];
      for (let i = 0; i < 3; i++) {
        rounds.push({ bare: await load('bare', bare.url, { paths, seconds: 4, connections: 16 }), same: await load('same', same.url, sameOpts), validate: await load('validate', api.url, opts) });
      }
      const pick = (k: 'bare' | 'same' | 'validate') => rounds.map((r) => r[k]).sort((a, b) => a.requests_per_s - b.requests_per_s)[1]!;
      const v = pick('validate');
      const ratio = (k: 'bare' | 'same') => median(rounds.map((r) => r.validate.requests_per_s / r[k].requests_per_s));
      if (bodies === repeated) {
        rows.push({ ...benchRow('bare Koa JSON route (30-byte answer)', pick('bare')), 'lines/s': '' });
        rows.push({ ...benchRow(`bare Koa route: parses the claim body, answers a precomputed validate answer (${Math.round(pick('same').bytes_per_s / pick('same').requests_per_s).toLocaleString()} bytes)`, pick('same')), 'lines/s': '' });
      }
      rows.push({ ...benchRow(`validate a 20-line claim (190 pairs): ${label}; ${ratio('bare').toFixed(2)}x the bare route`, v, pick('same'), ratio('same')), 'lines/s': v.requests_per_s * 20 });
    }
  } finally {
    await same.stop();
    await stop();
  }
  return rows;
}
