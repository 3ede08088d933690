import { LRUCache } from 'lru-cache';
import { DomainError } from '../../warehouse/errors.js';

/** What a limiter decided for one request. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees capacity. */
  reset: number;
}

/**
 * Counts requests per key (an API key id, a client address) and decides whether one more fits.
 * The pipeline takes a limiter per kind through `PipelineDeps`, so a shared store (Redis,
 * PostgreSQL) can replace the in-process one when replicas multiply. `take` may answer at once
 * (the in-process limiter: no promise on the hot path) or with a promise (a networked store).
 */
export interface RateLimiter {
  readonly perMinute: number;
  take(key: string): RateDecision | Promise<RateDecision>;
}

interface Window {
  start: number;
  count: number;
  prev: number;
}

/**
 * Sliding-window limiter (current + previous window, weighted; a minute unless told) held in
 * this process. The clock is injected so tests move time instead of sleeping. Windows are held in
 * a bounded LRU: a flood of new client addresses evicts the idlest windows instead of growing
 * without limit.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows: LRUCache<string, Window>;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
    maxKeys = 100_000,
    private readonly windowMs = 60_000,
  ) {
    this.windows = new LRUCache({ max: maxKeys });
  }

  take(key: string): RateDecision {
    const t = this.now();
    const W = this.windowMs;
    const minute = Math.floor(t / W) * W;
    let w = this.windows.get(key);
    if (!w || w.start !== minute) {
      const prev = w && w.start === minute - W ? w.count : 0;
      w = { start: minute, count: 0, prev };
      this.windows.set(key, w);
    }
    const elapsed = (t - minute) / W;
    const used = w.prev * (1 - elapsed) + w.count;
    const reset = Math.max(1, Math.ceil((minute + W - t) / 1000));
    if (used + 1 > this.perMinute) return { allowed: false, limit: this.perMinute, remaining: 0, reset };
    w.count++;
    return { allowed: true, limit: this.perMinute, remaining: Math.max(0, Math.floor(this.perMinute - used - 1)), reset };
  }
}

/**
 * Takes one request from `limiter` under `key`, writes the RateLimit headers into `headers` and
 * throws 429 (with Retry-After) when the window is full. Synchronous when the limiter answers at
 * once (no promise per request on the in-process path); a promise only for a networked limiter.
 */
export function takeOrThrow(limiter: RateLimiter, key: string, headers: Record<string, string>): void | Promise<void> {
  const t = limiter.take(key);
  if (t instanceof Promise) return t.then((d) => apply(d, headers));
  apply(t, headers);
}

function apply(d: RateDecision, headers: Record<string, string>): void {
  headers['ratelimit-limit'] = String(d.limit);
  headers['ratelimit-remaining'] = String(d.remaining);
  headers['ratelimit-reset'] = String(d.reset);
  if (!d.allowed) throw rateLimited(d);
}

/** 429 with `Retry-After`; `what` names the limit ("requests per minute"). */
export const rateLimited = (d: RateDecision, what = `${d.limit} requests per minute`): DomainError =>
  new DomainError('rate_limited', `rate limit of ${what} exceeded`, { headers: { 'retry-after': String(d.reset) } });
