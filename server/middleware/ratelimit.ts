/**
 * Per-key sliding-window limiter (current + previous minute, weighted), in memory. One process
 * serves a replica; the ARCHITECTURE note moves counters to Redis when replicas multiply.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees capacity. */
  reset: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number; prev: number }>();

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): RateDecision {
    const t = this.now();
    const minute = Math.floor(t / 60_000) * 60_000;
    let w = this.windows.get(key);
    if (!w || w.start !== minute) {
      const prev = w && w.start === minute - 60_000 ? w.count : 0;
      w = { start: minute, count: 0, prev };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) this.windows.clear();
    }
    const elapsed = (t - minute) / 60_000;
    const used = w.prev * (1 - elapsed) + w.count;
    const reset = Math.max(1, Math.ceil((minute + 60_000 - t) / 1000));
    if (used + 1 > this.perMinute) return { allowed: false, limit: this.perMinute, remaining: 0, reset };
    w.count++;
    return { allowed: true, limit: this.perMinute, remaining: Math.max(0, Math.floor(this.perMinute - used - 1)), reset };
  }
}
