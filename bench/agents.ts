import { join } from 'node:path';
import { startReceiver } from '../testing/receiver.js';
import { benchKeys, load, median } from './lib.js';
import { seededPair, spawnApi } from './procs.js';

const JOBS = Number(process.env.BENCH_AGENT_JOBS ?? 8000);

/**
 * The job runner with the default (deterministic, template-only) agents over the seeds, at the
 * default concurrency (RCM_AGENT_CONCURRENCY 2), fair claiming and the separate callback queue as
 * shipped (the per-tenant queue bound raised for the run, so the backlog is all submitted). Jobs
 * completed per second, twice: a backlog of mixed jobs (code research, denial resolution, medical
 * necessity) from 16 tenants, drained by a server's own runner, without callbacks, then with one
 * in three carrying a signed callback to a local receiver.
 * Then one tenant's job latency (submit to completed) while another tenant floods the queue to its
 * bound, against the same job on an idle queue: fair claiming keeps the ratio near 1. (Submits
 * themselves: the `writes` area.)
 */
export async function run(): Promise<Record<string, string | number>[]> {
  // The queue bound is raised for the run: the backlog is the point here (the bound is tested apart).
  const raised = { RCM_JOBS_QUEUED_PER_TENANT: '100000' };
  const { key, api: first, stop, dir } = await seededPair('rcm-bench-agents-', ['agents', 'knowledge', 'admin'], { ...raised, RCM_AGENT_RUNNER: '0' });
  const tenantKeys = await benchKeys(join(dir, 'state.sqlite'), ['agents', 'knowledge'], Array.from({ length: 16 }, (_, i) => `bench-${i}`));
  const rx = await startReceiver('bench-callback-secret');
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const rows: Record<string, string | number>[] = [];
  let api = first;
  let stopLast = () => first.stop();
  const finished = async () => {
    const text = await (await fetch(`${api.url}/v1/metrics`, { headers })).text();
    return [...text.matchAll(/^rcm_agent_jobs_finished_total\{[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
  };
  try {
    const codes = ['99213', '99214', '64490', '15823', '71046', '36415'];
    /**
     * One backlog: JOBS jobs submitted to a server that runs no jobs (1 in 3 with a callback when
     * `callbacks`), then a server with its runner over the same data dir drains it; the rate is
     * taken between 10% and 90% of the backlog done (read from /v1/metrics every 100 ms), so
     * neither the start nor the tail counts.
     */
    const drain = async (callbacks: boolean) => {
      const jobs = Array.from({ length: 18 }, (_, i) => {
        const c = codes[i % codes.length]!;
        const callback = callbacks && i % 3 === 0 ? { callback_url: rx.url, callback_secret: 'bench-callback-secret' } : {};
        const [path, body] =
          i % 3 === 0
            ? ['/v1/agents/code-research', { code: c, query: `What limits apply to ${c}?` }]
            : i % 3 === 1
              ? ['/v1/agents/denial-resolution', { denial_code: 'CO-50', payer: 'medicare', denial_date: '2026-03-02', code: c }]
              : ['/v1/agents/medical-necessity', { cpt_code: '64493', dx_codes: ['M47.816'] }];
        return { path, body: JSON.stringify({ ...body, ...callback }) };
      });
      await stopLast();
      api = await spawnApi(dir, { ...raised, RCM_AGENT_RUNNER: '0' });
      stopLast = () => api.stop();
      const sub = await load('submit', api.url, {
        paths: jobs.map((j) => j.path),
        bodies: jobs.map((j) => j.body),
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        headerSets: tenantKeys.map((k) => ({ 'X-API-Key': k })),
        amount: JOBS,
        connections: 16,
      });
      await stopLast();
      const received = rx.received.length;
      api = await spawnApi(dir, raised);
      stopLast = () => api.stop();
      const samples: { t: number; done: number }[] = [];
      for (const end = performance.now() + 300_000; performance.now() < end; ) {
        const done = await finished();
        samples.push({ t: performance.now(), done });
        if (done >= JOBS) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      /** When `n` jobs were done, interpolated between samples. */
      const at = (n: number) => {
        const i = samples.findIndex((s) => s.done >= n);
        const a = samples[Math.max(0, i - 1)]!;
        const b = samples[i]!;
        return b.done === a.done ? b.t : a.t + ((n - a.done) / (b.done - a.done)) * (b.t - a.t);
      };
      const last = samples.at(-1)!;
      const rate = last.done >= JOBS ? (0.8 * JOBS) / ((at(0.9 * JOBS) - at(0.1 * JOBS)) / 1000) : NaN;
      rows.push({
        case: `jobs completed by the runner: a backlog of ${JOBS} (code research, denial resolution, medical necessity${callbacks ? '; 1 in 3 with a signed callback' : ''}), concurrency 2, 10% to 90% done`,
        'req/s': Math.round(rate),
        'p50 ms': '',
        'p99 ms': '',
        'non-2xx': sub.non_2xx + sub.errors + (JOBS - last.done),
        'bare req/s': callbacks ? `${rx.received.length - received} callbacks received by the end` : '',
        'ratio vs bare': '',
      });
    };
    await drain(false);
    await drain(true);
    // One tenant's job while another floods the queue, against the same job on an idle queue: on a
    // server of the same data dir with the default bound (100 waiting per tenant).
    await stopLast();
    const bounded = await spawnApi(dir);
    stopLast = () => bounded.stop();
    const quiet = { 'X-API-Key': tenantKeys[0]!, 'Content-Type': 'application/json' };
    const flood = { 'X-API-Key': tenantKeys[1]!, 'Content-Type': 'application/json' };
    const latency = async (): Promise<number> => {
      const t = performance.now();
      const r = (await (await fetch(`${bounded.url}/v1/agents/code-research`, { method: 'POST', headers: quiet, body: JSON.stringify({ code: '99213', query: 'quiet tenant' }) })).json()) as { job_id: string };
      for (;;) {
        const j = (await (await fetch(`${bounded.url}/v1/agents/jobs/${r.job_id}`, { headers: quiet })).json()) as { status: string };
        if (j.status === 'completed' || j.status === 'failed') return performance.now() - t;
        if (performance.now() - t > 120_000) return NaN;
        await new Promise((res) => setTimeout(res, 5));
      }
    };
    const idle: number[] = [];
    for (let i = 0; i < 5; i++) idle.push(await latency());
    let refused = 0;
    const floods = await Promise.all(
      Array.from({ length: 150 }, (_, i) => fetch(`${bounded.url}/v1/agents/code-research`, { method: 'POST', headers: flood, body: JSON.stringify({ code: codes[i % codes.length], query: 'flood' }) })),
    );
    for (const f of floods) if (f.status === 429) refused++;
    const busy: number[] = [];
    for (let i = 0; i < 5; i++) busy.push(await latency());
    rows.push({
      case: `one tenant's job, submit to done, while another floods the queue (150 submits, ${refused} refused 429 past its bound of 100) vs an idle queue`,
      'req/s': '',
      'p50 ms': Math.round(median(busy)),
      'p99 ms': Math.round(Math.max(...busy)),
      'non-2xx': refused,
      'bare req/s': `idle p50 ${Math.round(median(idle))} ms`,
      'ratio vs bare': (median(busy) / median(idle)).toFixed(2),
    });
  } finally {
    await stopLast();
    await rx.close();
    await stop();
  }
  return rows;
}
