import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { benchRow, load, paired } from './lib.js';
import { seededPair } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');

/** The first column of a seeded Medi-Cal sheet (its header is the third line, under the title and the illustrative notice). */
async function firstColumn(file: string): Promise<string[]> {
  const text = await readFile(join(ROOT, 'seeds', file), 'utf8');
  return (parse(text.split(/\r?\n/).slice(2).join('\n'), { columns: true, skip_empty_lines: true }) as Record<string, string>[]).map((r) => Object.values(r)[0]!);
}

/**
 * `POST /v1/medi-cal/apr-drg/payment` over the seeds: every seeded DRG-SOI at every seeded
 * hospital, with charges, ages, stays and discharge statuses that reach every branch (outliers,
 * transfers, interim claims, NICU adjustors), 16 connections, beside the bare Koa route sent the
 * same POST bodies. First pass: 60,000 distinct stays (more than a run sends), so every request is
 * validated and priced; warm: the 90 stays again, answered from the answer cache (a stay's price
 * depends only on the snapshot and the body), median of 3 alternating rounds. Target: >= 0.7x bare.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const drgs = await firstColumn('medi_cal_apr_drg/SFY 2025-26 APR-DRG Table.csv');
  const hospitals = await firstColumn('medi_cal_hospitals/SFY 2025-26 DRG Hospital List.csv');
  const statuses = [undefined, '01', '02', '30'];
  const stay = (k: number, cents: number) =>
    JSON.stringify({
      apr_drg: drgs[k % drgs.length],
      oshpd_id: hospitals[Math.floor(k / drgs.length) % hospitals.length],
      length_of_stay: (k * 7) % 40,
      patient_age: (k * 13) % 90,
      total_charges: 2000 + ((k * 7919) % 400) * 1250 + cents / 100,
      discharge_date: k % 2 ? '2026-03-02' : '2025-08-15',
      ...(statuses[k % 4] ? { discharge_status: statuses[k % 4] } : {}),
    });
  const grid = drgs.length * hospitals.length;
  const warmBodies = Array.from({ length: grid }, (_, k) => stay(k, 0));
  // Distinct from the warm set and from each other: the cents of the charges differ.
  const firstBodies = Array.from({ length: 60_000 }, (_, n) => stay(n % grid, 1 + Math.floor(n / grid)));
  const { key, api, bare, stop } = await seededPair('rcm-bench-medi-cal-');
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const path = '/v1/medi-cal/apr-drg/payment';
  const post = (bodies: string[], seconds: number, h: Record<string, string> = headers) => ({ paths: [path], bodies, method: 'POST', headers: h, seconds, connections: 16 });
  const bareHeaders = { 'Content-Type': 'application/json' };
  try {
    const first = await fetch(`${api.url}${path}`, { method: 'POST', headers, body: warmBodies[0] });
    if (first.status !== 200) throw new Error(`APR-DRG payment answered ${first.status}: ${await first.text()}`);
    // JIT warmup on stays that are measured in neither case (whole-dollar charges + 0.5 cents).
    await load('warmup', api.url, post(Array.from({ length: 5000 }, (_, n) => stay(n % grid, 0.5)), 3));
    await load('warmup bare', bare.url, post(warmBodies, 2, bareHeaders));
    // The first pass can run once only (afterwards the cache holds its answers): bare right before it.
    const b = await load('bare', bare.url, post(firstBodies, 4, bareHeaders));
    const r = await load('first pass', api.url, post(firstBodies, 4));
    const rows = [benchRow(`price a stay, first pass (every request a new stay: ${drgs.length} DRG-SOIs x ${hospitals.length} hospitals, every branch)`, r, b, r.requests_per_s / b.requests_per_s)];
    await load('fill', api.url, post(warmBodies, 1));
    const p = await paired(
      3,
      () => load('bare', bare.url, post(warmBodies, 4, bareHeaders)),
      () => load('warm', api.url, post(warmBodies, 4)),
    );
    rows.push(benchRow(`price a stay, the same ${grid} stays again (answer cache) (median of 3)`, p.subject, p.base, p.ratio));
    return rows;
  } finally {
    await stop();
  }
}
