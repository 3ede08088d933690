import { LRUCache } from 'lru-cache';

/** An answer as sent: status, headers and the serialized body. Only 200 answers are kept. */
export interface CachedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Answers memoised by validated input (never by raw URL), bounded by bytes: an LRU whose size is
 * the body plus its key, so a caller sending many distinct valid requests can never grow the
 * server past `maxBytes`. Concurrent identical requests share one computation.
 */
export class AnswerCache {
  private readonly lru: LRUCache<string, CachedAnswer>;
  private readonly inflight = new Map<string, Promise<CachedAnswer>>();

  constructor(readonly maxBytes: number) {
    this.lru = new LRUCache<string, CachedAnswer>({ maxSize: maxBytes, sizeCalculation: (v, k) => v.body.length + k.length * 2 + 64 });
  }

  get bytes(): number {
    return this.lru.calculatedSize;
  }

  get size(): number {
    return this.lru.size;
  }

  /** The cached answer for `key`, or computes and returns it, keeping it when it is a 200 (errors are not kept). */
  async get(key: string, compute: () => Promise<CachedAnswer>, onLookup?: (hit: boolean) => void): Promise<CachedAnswer> {
    const hit = this.lru.get(key);
    if (hit) {
      onLookup?.(true);
      return hit;
    }
    onLookup?.(false);
    const running = this.inflight.get(key);
    if (running) return running;
    const p = compute().then((v) => {
      if (v.status === 200 && v.body.length + key.length * 2 + 64 <= this.maxBytes) this.lru.set(key, v);
      return v;
    });
    this.inflight.set(key, p);
    try {
      return await p;
    } finally {
      this.inflight.delete(key);
    }
  }

  /** Drops the answers of snapshots that are no longer served. */
  dropSnapshot(snapshotId: string): void {
    const mark = `\u0000s:${snapshotId}\u0000`;
    for (const k of this.lru.keys()) if (k.includes(mark)) this.lru.delete(k);
  }
}
