import { LRUCache } from 'lru-cache';

/** What a limiter decided for one request. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees capacity. */
  reset: number;
}

interface Window {
  start: number;
  count: number;
  prev: number;
}

/**
 * Sliding-window limiter (current + previous window, weighted; a minute unless told), keyed by API key id
 * or client address. The clock is injected so tests move time instead of sleeping. Windows are
 * held in a bounded LRU: a flood of new client addresses evicts the idlest windows instead of
 * growing without limit. One process serves a replica; counters move to Redis behind this same
 * `take` when replicas multiply.
 */
export class RateLimiter {
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
