import { BoundedMap } from '../../lib/bounded_map.js';
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { sidecarFallbacks } from '../../warehouse/snapshot.js';

/**
 * Prometheus metrics through prom-client, in a registry per app (so several servers in one test
 * process never share counters): requests and latency by route template, status and transport,
 * snapshot swaps, the answer cache, answers a sidecar left to DuckDB, and the process's own figures.
 */
export class Metrics {
  readonly registry = new Registry();
  /** `rcm_http_requests_total` and `rcm_http_request_duration_seconds`, counted in plain numbers. */
  private readonly requestStats = new RequestStats();
  readonly snapshotSwaps = new Counter({ name: 'rcm_snapshot_swaps_total', help: 'Snapshots mounted after the first.', registers: [this.registry] });
  readonly cacheBytes = new Gauge({ name: 'rcm_answer_cache_bytes', help: 'Bytes held by the answer cache.', registers: [this.registry] });
  /** Answer-cache hits and misses, counted in plain numbers and handed over at scrape time. */
  private readonly lookupCounts = { hit: 0, miss: 0 };

  readonly callbackAttempts = new Counter({
    name: 'rcm_agent_callback_attempts_total',
    help: 'Agent callback delivery attempts by outcome (delivered, retry, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly jobsFinished = new Counter({
    name: 'rcm_agent_jobs_finished_total',
    help: 'Agent jobs finished by this process, by final status.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  /** Reports job counts by state at scrape time from `count` (the durable queue). */
  watchJobs(count: () => Promise<Record<string, number>>): void {
    new Gauge({
      name: 'rcm_agent_jobs',
      help: 'Agent jobs in the state store by state (accepted, running, completed, failed).',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        for (const [state, n] of Object.entries(await count())) this.set({ state }, n);
      },
    });
  }

  constructor(opts: { processMetrics?: boolean } = {}) {
    for (const m of this.requestStats.metrics()) this.registry.registerMetric(m as unknown as Metric);
    const counts = this.lookupCounts;
    new Counter({
      name: 'rcm_answer_cache_lookups_total',
      help: 'Answer cache lookups by outcome (hit, miss).',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ outcome: 'hit' }, counts.hit);
        this.inc({ outcome: 'miss' }, counts.miss);
      },
    });
    new Counter({
      name: 'rcm_sidecar_fallbacks_total',
      help: "Answers a version's sidecar could have given that DuckDB gave, by dataset, sidecar and reason (missing, damaged, wide; refused: a sidecar of a format version this build does not read, once per snapshot); counted by the process.",
      labelNames: ['dataset', 'sidecar', 'reason'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const f of sidecarFallbacks()) this.inc({ dataset: f.dataset, sidecar: f.sidecar, reason: f.reason }, f.count);
      },
    });
    if (opts.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, prefix: 'rcm_' });
      new Gauge({
        name: 'rcm_heap_used_and_array_buffers_bytes',
        help: 'V8 heap used plus ArrayBuffer memory (what answers and request bodies hold); after a full garbage collection when the process runs with --expose-gc (diagnosis), else as it stands.',
        registers: [this.registry],
        collect() {
          (globalThis as { gc?: () => void }).gc?.();
          const m = process.memoryUsage();
          this.set(m.heapUsed + m.arrayBuffers);
        },
      });
    }
  }

  /** One answer-cache lookup. */
  cacheLookup(hit: boolean): void {
    if (hit) this.lookupCounts.hit++;
    else this.lookupCounts.miss++;
  }

  /** One request: its count by status and its latency. */
  observe(method: string, route: string, status: number, seconds: number, transport: 'http' | 'mcp'): void {
    this.requestStats.observe(method, route, status, seconds, transport);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface Counted {
  labels: Record<string, string>;
  count: number;
}

interface Timed extends Counted {
  sum: number;
  /** Per bucket (not cumulative); the last slot is above the largest bound. */
  buckets: number[];
}

/** A metric the registry reads like its own (`get()` in prom-client's shape). */
const exposed = (name: string, help: string, type: 'counter' | 'histogram', values: () => object[], reset: () => void) => {
  const head = { name, help, type, aggregator: 'sum' };
  return { ...head, get: async () => ({ ...head, values: values() }), reset };
};

/**
 * The two per-request metrics as plain counters, exposed to prom-client's registry as metrics
 * of its own shape. prom-client validates and hashes the labels on every `inc`/`observe`, even
 * through a labelled child: ~3.6 us a request in `npm run bench`, here a Map lookup and three
 * additions. The exposition is the same (`rcm_http_requests_total{method,route,status,transport}`,
 * histogram buckets with `le` first).
 */
class RequestStats {
  // Route templates and statuses are few; the bound keeps an unmatched-path flood harmless.
  private readonly counts = new BoundedMap<string, Counted>(5000);
  private readonly times = new BoundedMap<string, Timed>(5000);

  observe(method: string, route: string, status: number, seconds: number, transport: string): void {
    const tk = `${method} ${route} ${transport}`;
    const ck = `${tk} ${status}`;
    const c = this.counts.getOrSet(ck, () => ({ labels: { method, route, status: String(status), transport }, count: 0 }));
    c.count++;
    const t = this.times.getOrSet(tk, () => ({ labels: { method, route, transport }, count: 0, sum: 0, buckets: new Array<number>(BUCKETS.length + 1).fill(0) }));
    t.count++;
    t.sum += seconds;
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    t.buckets[i]!++;
  }

  metrics(): object[] {
    const requests = 'rcm_http_requests_total';
    const latency = 'rcm_http_request_duration_seconds';
    return [
      exposed(requests, 'Requests by method, route template, status and transport (http or mcp).', 'counter', () => this.counts.values().map((c) => ({ labels: c.labels, value: c.count })), () => this.counts.clear()),
      exposed(
        latency,
        'Request latency by method, route template and transport.',
        'histogram',
        () =>
          this.times.values().flatMap((t) => {
            let acc = 0;
            const buckets = [...BUCKETS, '+Inf' as const].map((le, k) => ({ labels: { le, ...t.labels }, value: (acc += t.buckets[k]!), metricName: `${latency}_bucket` }));
            return [...buckets, { labels: t.labels, value: t.sum, metricName: `${latency}_sum` }, { labels: t.labels, value: t.count, metricName: `${latency}_count` }];
          }),
        () => this.times.clear(),
      ),
    ];
  }
}
