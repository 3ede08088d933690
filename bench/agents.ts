import { join } from 'node:path';
import { benchKey, benchRow, load } from './lib.js';
import { seededPair } from './procs.js';

/**
 * Agent jobs with the default (deterministic) agents over the seeds: submits per second
 * (POST /v1/agents/code-research, 202 + a durable insert each; 1,500 submits over 16 connections
 * from 16 tenants, so RCM_JOBS_QUEUED_PER_TENANT (100) does not cut the run short, beside a bare
 * Koa run), then jobs completed per second by the server's own runner (RCM_AGENT_CONCURRENCY
 * default 2) for a batch of 300 mixed jobs, read from /v1/metrics; then one tenant's job latency
 * (submit to succeeded) while another tenant floods the queue to its bound, against the same
 * job's latency on an idle queue: fair claiming keeps the ratio near 1.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const { key, api, bare, stop, dir } = await seededPair('rcm-bench-agents-', ['agents', 'knowledge', 'admin']);
  const state = join(dir, 'state.sqlite');
  const tenantKeys: string[] = [];
  for (let i = 0; i < 16; i++) tenantKeys.push(await benchKey(state, ['agents', 'knowledge'], `bench-${i}`));
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const rows: Record<string, string | number>[] = [];
  const finished = async () => {
    const text = await (await fetch(`${api.url}/v1/metrics`, { headers })).text();
    return [...text.matchAll(/^rcm_agent_jobs_finished_total\{[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
  };
  const drain = async () => {
    for (let last = -1, now = await finished(); now !== last; ) {
      await new Promise((r) => setTimeout(r, 1000));
      last = now;
      now = await finished();
    }
  };
  try {
    const codes = ['99213', '99214', '64490', '15823', '71046', '36415'];
    const bodies = codes.map((c) => JSON.stringify({ code: c, query: `What limits apply to ${c}?` }));
    const paths = bodies.map(() => '/v1/agents/code-research');
    const base = await load('bare', bare.url, { paths, seconds: 4, connections: 16 });
    // A fixed count, not a duration: the runner then drains a bounded backlog (at ~20 jobs/s a
    // 4-second burst left minutes of work once submits got faster).
    const headerSets = tenantKeys.map((k) => ({ 'X-API-Key': k }));
    const sub = await load('submit', api.url, { paths, bodies, method: 'POST', headers, headerSets, amount: 1500, connections: 16 });
    rows.push(benchRow('submit code-research (202, one durable insert each)', sub, base, sub.requests_per_s / base.requests_per_s));
    // Let the submitted backlog drain before timing a fresh batch.
    await drain();
    const before = await finished();
    const batch = Array.from({ length: 300 }, (_, i) => {
      const kind = i % 3;
      const c = codes[i % codes.length];
      return kind === 0
        ? ['/v1/agents/code-research', { code: c }]
        : kind === 1
          ? ['/v1/agents/denial-resolution', { denial_code: 'CO-50', payer: 'medicare', denial_date: '2026-03-02' }]
          : ['/v1/agents/medical-necessity', { cpt_code: '64493', dx_codes: ['M47.816'] }];
    }) as [string, unknown][];
    const t0 = performance.now();
    for (const [path, body] of batch) await fetch(`${api.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    let done = 0;
    while ((done = (await finished()) - before) < batch.length && performance.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 100));
    const secs = (performance.now() - t0) / 1000;
    rows.push({ case: `jobs completed by the runner (300: code research, denial resolution, medical necessity)`, 'req/s': Math.round(done / secs), 'p50 ms': '', 'p99 ms': '', 'non-2xx': batch.length - done, 'bare req/s': '', 'ratio vs bare': '' });
    await drain();
    // One tenant's job while another floods the queue, against the same job on an idle queue.
    const quiet = { 'X-API-Key': tenantKeys[0]!, 'Content-Type': 'application/json' };
    const flood = { 'X-API-Key': tenantKeys[1]!, 'Content-Type': 'application/json' };
    const latency = async (): Promise<number> => {
      const t = performance.now();
      const r = (await (await fetch(`${api.url}/v1/agents/code-research`, { method: 'POST', headers: quiet, body: JSON.stringify({ code: '99213', query: 'quiet tenant' }) })).json()) as { job_id: string };
      for (;;) {
        const j = (await (await fetch(`${api.url}/v1/agents/jobs/${r.job_id}`, { headers: quiet })).json()) as { status: string };
        if (j.status === 'completed' || j.status === 'failed') return performance.now() - t;
        if (performance.now() - t > 120_000) return NaN;
        await new Promise((res) => setTimeout(res, 5));
      }
    };
    const idle: number[] = [];
    for (let i = 0; i < 5; i++) idle.push(await latency());
    let refused = 0;
    const floods = await Promise.all(
      Array.from({ length: 150 }, (_, i) => fetch(`${api.url}/v1/agents/code-research`, { method: 'POST', headers: flood, body: JSON.stringify({ code: codes[i % codes.length], query: 'flood' }) })),
    );
    for (const f of floods) if (f.status === 429) refused++;
    const busy: number[] = [];
    for (let i = 0; i < 5; i++) busy.push(await latency());
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    rows.push({
      case: `one tenant's job, submit to done, while another floods the queue (150 submits, ${refused} refused 429 past its bound of 100) vs an idle queue`,
      'req/s': '',
      'p50 ms': Math.round(med(busy)),
      'p99 ms': Math.round(Math.max(...busy)),
      'non-2xx': refused,
      'bare req/s': `idle p50 ${Math.round(med(idle))} ms`,
      'ratio vs bare': (med(busy) / med(idle)).toFixed(2),
    });
  } finally {
    await stop();
  }
  return rows;
}
