import { benchRow, load } from './lib.js';
import { seededPair } from './procs.js';

/**
 * Agent jobs with the default (deterministic) agents over the seeds: submits per second
 * (POST /v1/agents/code-research, 202 + a durable insert each; 1,500 submits over 16 connections, beside a bare
 * Koa run), then jobs completed per second by the server's own runner (RCM_AGENT_CONCURRENCY
 * default 2) for a batch of 300 mixed jobs, read from /v1/metrics.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const { key, api, bare, stop } = await seededPair('rcm-bench-agents-', ['agents', 'admin']);
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const rows: Record<string, string | number>[] = [];
  const finished = async () => {
    const text = await (await fetch(`${api.url}/v1/metrics`, { headers })).text();
    return [...text.matchAll(/^rcm_agent_jobs_finished_total\{[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
  };
  try {
    const codes = ['99213', '99214', '64490', '15823', '71046', '36415'];
    const bodies = codes.map((c) => JSON.stringify({ code: c, query: `What limits apply to ${c}?` }));
    const paths = bodies.map(() => '/v1/agents/code-research');
    const base = await load('bare', bare.url, { paths, seconds: 4, connections: 16 });
    // A fixed count, not a duration: the runner then drains a bounded backlog (at ~20 jobs/s a
    // 4-second burst left minutes of work once submits got faster).
    const sub = await load('submit', api.url, { paths, bodies, method: 'POST', headers, amount: 1500, connections: 16 });
    rows.push(benchRow('submit code-research (202, one durable insert each)', sub, base, sub.requests_per_s / base.requests_per_s));
    // Let the submitted backlog drain before timing a fresh batch.
    for (let last = -1, now = await finished(); now !== last; ) {
      await new Promise((r) => setTimeout(r, 1000));
      last = now;
      now = await finished();
    }
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
  } finally {
    await stop();
  }
  return rows;
}
