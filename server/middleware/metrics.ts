/**
 * Prometheus counters and latency histograms by route template and status, kept in memory.
 * Hand-written (a few dozen lines) rather than prom-client: two metric families do not need it.
 */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface Series {
  count: number;
  sum: number;
  buckets: number[];
}

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, Series>();
  snapshotSwaps = 0;

  observe(method: string, route: string, status: number, seconds: number): void {
    const rk = `${method}\u0000${route}\u0000${status}`;
    this.requests.set(rk, (this.requests.get(rk) ?? 0) + 1);
    const lk = `${method}\u0000${route}`;
    let s = this.latency.get(lk);
    if (!s) this.latency.set(lk, (s = { count: 0, sum: 0, buckets: BUCKETS.map(() => 0) }));
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) s.buckets[i]!++;
  }

  render(extra: Record<string, number> = {}): string {
    const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
    const out: string[] = [];
    out.push('# HELP rcm_http_requests_total HTTP requests by method, route template and status.');
    out.push('# TYPE rcm_http_requests_total counter');
    for (const [k, n] of this.requests) {
      const [m, r, st] = k.split('\u0000');
      out.push(`rcm_http_requests_total{method="${m}",route="${esc(r!)}",status="${st}"} ${n}`);
    }
    out.push('# HELP rcm_http_request_duration_seconds Request latency by method and route template.');
    out.push('# TYPE rcm_http_request_duration_seconds histogram');
    for (const [k, s] of this.latency) {
      const [m, r] = k.split('\u0000');
      const l = `method="${m}",route="${esc(r!)}"`;
      BUCKETS.forEach((b, i) => out.push(`rcm_http_request_duration_seconds_bucket{${l},le="${b}"} ${s.buckets[i]}`));
      out.push(`rcm_http_request_duration_seconds_bucket{${l},le="+Inf"} ${s.count}`);
      out.push(`rcm_http_request_duration_seconds_sum{${l}} ${s.sum}`);
      out.push(`rcm_http_request_duration_seconds_count{${l}} ${s.count}`);
    }
    for (const [name, v] of Object.entries(extra)) {
      out.push(`# TYPE ${name} gauge`, `${name} ${v}`);
    }
    return out.join('\n') + '\n';
  }
}
