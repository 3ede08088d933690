import type { StreamedJson } from '../json_bytes.js';
import { LRUCache } from 'lru-cache';
import { BoundedMap } from '../../lib/bounded_map.js';
import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import type { RouteDef } from '../route.js';
import { inputKey, type ValidInput } from './input.js';

/**
 * An answer as sent: status, headers and the serialized body. Only 200 answers are kept, and
 * never one whose handler marked it `Cache-Control: no-store` (it used a live outside service).
 */
export interface CachedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** An uncached answer written as it is produced, at the reader's pace (`body` is then empty). */
  stream?: StreamedJson;
}

interface Entry extends CachedAnswer {
  /** Snapshot the answer was computed from ('' when it reads none). */
  snapshot: string;
}

/** Per-entry bytes beyond the body and key: the entry and Buffer objects, LRU slots. */
const ENTRY_OVERHEAD = 192;

/**
 * A copy of `b` in its own allocation. Small Buffers are slices of Node's shared 8 KB pool, and
 * a kept slice pins its whole slab: cached as-is, 1 KB answers held ~6 KB each (measured).
 */
function unpooled(b: Buffer): Buffer {
  if (b.byteOffset === 0 && b.buffer.byteLength === b.length) return b;
  const copy = Buffer.allocUnsafeSlow(b.length);
  b.copy(copy);
  return copy;
}

/** Header objects shared by entries that carry the same headers (most carry only the JSON type). */
const sharedHeaders = new BoundedMap<string, Record<string, string>>(64);
function intern(h: Record<string, string>): Record<string, string> {
  return sharedHeaders.getOrSet(JSON.stringify(h), () => Object.freeze({ ...h }) as Record<string, string>);
}

/** The header a handler sets on an answer that must not be kept (see `NO_STORE`). */
function isNoStore(h: Record<string, string>): boolean {
  return h['cache-control'] === NO_STORE['cache-control'];
}

/**
 * Headers of an answer of a cached route that the answer cache must not keep, and clients and
 * proxies should not either: it used or needed a live outside service (the NPPES registry), so
 * the next call must ask again rather than repeat it.
 */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store' });

/**
 * Answers memoised by validated input (never by raw URL), bounded by bytes: an LRU whose entry
 * size is the body, the key (two bytes a character) and a fixed overhead, so a caller sending many distinct valid requests can never grow the
 * server past `maxBytes`. Concurrent identical requests share one computation.
 */
export class AnswerCache {
  private readonly lru: LRUCache<string, Entry>;
  private readonly inflight = new Map<string, Promise<CachedAnswer>>();

  constructor(readonly maxBytes: number) {
    this.lru = new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (v, k) => v.body.length + k.length * 2 + ENTRY_OVERHEAD });
  }

  get bytes(): number {
    return this.lru.calculatedSize;
  }

  get size(): number {
    return this.lru.size;
  }

  /** The cached answer for `key`, if any (no computation, no promise: the hot path of a hit). */
  peek(key: string): CachedAnswer | undefined {
    return this.lru.get(key);
  }

  /**
   * Computes the answer for `key` (from `snapshot`) after a `peek` missed, keeping it when it is a
   * 200 (errors are not kept). Concurrent identical requests share one computation.
   */
  async fill(key: string, snapshot: string, compute: () => Promise<CachedAnswer>): Promise<CachedAnswer> {
    const running = this.inflight.get(key);
    if (running) return running;
    const p = compute().then((v) => {
      if (v.status === 200 && !isNoStore(v.headers) && v.body.length + key.length * 2 + ENTRY_OVERHEAD <= this.maxBytes) {
        this.lru.set(key, { status: v.status, headers: intern(v.headers), body: unpooled(v.body), snapshot });
      }
      return v;
    });
    this.inflight.set(key, p);
    try {
      return await p;
    } finally {
      this.inflight.delete(key);
    }
  }

  /** Drops the answers of a snapshot that is no longer served. */
  dropSnapshot(snapshotId: string): void {
    for (const [k, v] of this.lru.entries()) if (v.snapshot === snapshotId) this.lru.delete(k);
  }
}

/**
 * The answer-cache key of a call, from what the route declares it reads: the operation, the
 * snapshot id, the tenant id and its state generation (a write bumps it, so no cached answer
 * outlives the data it used), today's date for `cache: 'daily'`, and the validated input.
 */
export function answerKey(route: RouteDef, snapshot: MountedSnapshot | null, tenant: { id: string; generation: number } | null, now: () => Date, input: ValidInput): string {
  let key = `\u0000${route.operationId}`;
  if (snapshot) key += `\u0000s:${snapshot.id}`;
  if (tenant) key += `\u0000t:${tenant.id}:${tenant.generation}`;
  if (route.cache === 'daily') key += `\u0000d:${todayOf(now())}`;
  return `${key}\u0000${input.cacheKey ?? inputKey(input)}`;
}
