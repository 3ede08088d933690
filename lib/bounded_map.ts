import { LRUCache } from 'lru-cache';

/**
 * A map that holds at most `max` entries, letting go of the least recently used past that: the one
 * shape for a memo keyed by what callers send (Host headers, header sets, metric label sets), where
 * a flood of distinct keys must cost a bounded amount of memory and the common keys stay. (It
 * replaces maps that were cleared whole at a size, which dropped the common keys with the flood.)
 */
export class BoundedMap<K extends {}, V extends {}> {
  private readonly lru: LRUCache<K, V>;

  constructor(readonly max: number) {
    this.lru = new LRUCache<K, V>({ max });
  }

  get(k: K): V | undefined {
    return this.lru.get(k);
  }

  set(k: K, v: V): this {
    this.lru.set(k, v);
    return this;
  }

  /** The value under `k`, made by `make` (and kept) when there is none. */
  getOrSet(k: K, make: () => V): V {
    let v = this.lru.get(k);
    if (v === undefined) this.lru.set(k, (v = make()));
    return v;
  }

  get size(): number {
    return this.lru.size;
  }

  values(): V[] {
    return [...this.lru.values()];
  }

  clear(): void {
    this.lru.clear();
  }
}
