import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics through prom-client, in a registry per app (so several servers in one test
 * process never share counters): requests and latency by route template, status and transport,
 * snapshot swaps, the answer cache, and the process's own figures.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'rcm_http_requests_total',
    help: 'Requests by method, route template, status and transport (http or mcp).',
    labelNames: ['method', 'route', 'status', 'transport'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'rcm_http_request_duration_seconds',
    help: 'Request latency by method, route template and transport.',
    labelNames: ['method', 'route', 'transport'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly snapshotSwaps = new Counter({ name: 'rcm_snapshot_swaps_total', help: 'Snapshots mounted after the first.', registers: [this.registry] });
  readonly cacheBytes = new Gauge({ name: 'rcm_answer_cache_bytes', help: 'Bytes held by the answer cache.', registers: [this.registry] });
  readonly cacheLookups = new Counter({
    name: 'rcm_answer_cache_lookups_total',
    help: 'Answer cache lookups by outcome (hit, miss).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

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
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'rcm_' });
  }

  /** Labelled children resolved once per label set (prom-client hashes labels on every call otherwise). */
  private readonly children = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();

  observe(method: string, route: string, status: number, seconds: number, transport: 'http' | 'mcp'): void {
    const k = `${method} ${route} ${status} ${transport}`;
    let c = this.children.get(k);
    if (!c) {
      // Route templates and statuses are few; the bound keeps an unmatched-path flood harmless.
      if (this.children.size > 5000) this.children.clear();
      c = { count: this.requests.labels({ method, route, status: String(status), transport }), time: this.duration.labels({ method, route, transport }) };
      this.children.set(k, c);
    }
    c.count.inc();
    c.time.observe(seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
