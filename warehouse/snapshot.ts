import { DuckDBInstance, type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBValue } from '@duckdb/node-api';
import type { DatasetVersion, Manifest } from './manifest.js';
import type { Warehouse } from './store.js';

/**
 * Read access to one immutable snapshot. Queries in `datasets/<id>/queries.ts` take this, never
 * Koa; the view named after each dataset id unions all its loaded versions (column `version`).
 */
export interface SnapshotReader {
  readonly id: string;
  readonly manifest: Manifest;
  /** Runs read-only SQL with `$1`-style parameters; BIGINTs come back as numbers. */
  all<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]>;
  /**
   * Memoises a computation for the life of this snapshot. A snapshot never changes, so any
   * answer derived from it can be kept until the next one is mounted.
   */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** Loaded versions of a dataset, oldest effective first (empty when not loaded). */
  versions(dataset: string): DatasetVersion[];
  has(dataset: string): boolean;
}

const MEMO_LIMIT = 200_000;

export function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

export function quoteString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function toPlain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = toPlain(x);
    return o;
  }
  return v;
}

/** A snapshot attached read-only in an in-memory DuckDB, with a small connection pool. */
export class MountedSnapshot implements SnapshotReader {
  private readonly memos = new Map<string, Promise<unknown>>();
  /** Per connection: prepared statements by SQL text, and the tail of its queue. */
  private readonly prepared: Map<string, Promise<DuckDBPreparedStatement>>[];
  private readonly queues: Promise<unknown>[];
  private next = 0;
  private refs = 0;
  private closing = false;

  private constructor(
    readonly id: string,
    readonly manifest: Manifest,
    private readonly instance: DuckDBInstance,
    private readonly conns: DuckDBConnection[],
  ) {
    this.prepared = conns.map(() => new Map());
    this.queues = conns.map(() => Promise.resolve());
  }

  static async open(wh: Warehouse, manifest: Manifest, opts: { connections?: number; threads?: number } = {}): Promise<MountedSnapshot> {
    const instance = await DuckDBInstance.create(':memory:', { threads: String(opts.threads ?? 2) });
    const conn = await instance.connect();
    for (const [dataset, versions] of Object.entries(manifest.datasets)) {
      if (versions.length === 0) continue;
      const parts: string[] = [];
      for (const [i, v] of versions.entries()) {
        const alias = `${dataset}__${i}`;
        await conn.run(`ATTACH ${quoteString(wh.path(v.file))} AS ${quoteIdent(alias)} (READ_ONLY)`);
        parts.push(`SELECT * FROM ${quoteIdent(alias)}.main.${quoteIdent(dataset)}`);
      }
      await conn.run(`CREATE VIEW ${quoteIdent(dataset)} AS ${parts.join(' UNION ALL BY NAME ')}`);
    }
    const conns = [conn];
    for (let i = 1; i < (opts.connections ?? 4); i++) conns.push(await instance.connect());
    return new MountedSnapshot(manifest.id, manifest, instance, conns);
  }

  /**
   * Parameterised queries are prepared once per connection and reused (planning a view over the
   * attached version files costs about as much as running a point query). Each connection runs
   * one query at a time, so a statement's bindings never interleave.
   */
  async all<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]> {
    const i = this.next++ % this.conns.length;
    const conn = this.conns[i]!;
    const run = async () => {
      if (!params || params.length === 0) return (await conn.runAndReadAll(sql)).getRowObjectsJS();
      const cache = this.prepared[i]!;
      let ps = cache.get(sql);
      if (!ps) {
        if (cache.size >= 500) cache.clear();
        ps = conn.prepare(sql);
        cache.set(sql, ps);
        ps.catch(() => cache.delete(sql));
      }
      const stmt = await ps;
      stmt.bind(params);
      return (await stmt.runAndReadAll()).getRowObjectsJS();
    };
    const result = this.queues[i]!.then(run, run);
    this.queues[i] = result.catch(() => undefined);
    return (await result).map((r) => toPlain(r) as T);
  }

  memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let p = this.memos.get(key) as Promise<T> | undefined;
    if (!p) {
      if (this.memos.size >= MEMO_LIMIT) this.memos.clear();
      p = compute();
      this.memos.set(key, p);
      // A failure is not remembered: the next call computes again.
      p.catch(() => this.memos.delete(key));
    }
    return p;
  }

  versions(dataset: string): DatasetVersion[] {
    return this.manifest.datasets[dataset] ?? [];
  }

  has(dataset: string): boolean {
    return this.versions(dataset).length > 0;
  }

  retain(): void {
    this.refs++;
  }

  release(): void {
    this.refs--;
    if (this.closing && this.refs === 0) this.dispose();
  }

  /** Closes once the last in-flight request that holds this snapshot has finished. */
  close(): void {
    this.closing = true;
    if (this.refs === 0) this.dispose();
  }

  private dispose(): void {
    for (const c of this.conns) c.closeSync();
    this.instance.closeSync();
  }
}

/**
 * Holds the served snapshot and swaps it when `CURRENT` changes (polling, because file watches
 * are unreliable across editors and network disks). In-flight requests keep the snapshot they
 * started with; the old one closes after they finish.
 */
export class SnapshotHolder {
  private current: MountedSnapshot | null = null;
  private timer: NodeJS.Timeout | null = null;
  private swapping: Promise<void> | null = null;
  lastError: string | null = null;

  constructor(
    private readonly wh: Warehouse,
    private readonly onSwap: (from: string | null, to: string) => void = () => {},
  ) {}

  get snapshot(): MountedSnapshot | null {
    return this.current;
  }

  /** Mounts what CURRENT names if it differs from what is served. */
  refresh(): Promise<void> {
    if (!this.swapping) {
      this.swapping = (async () => {
        try {
          const id = await this.wh.currentId();
          if (!id || id === this.current?.id) return;
          const manifest = await this.wh.readManifest(id);
          const next = await MountedSnapshot.open(this.wh, manifest);
          const prev = this.current;
          this.current = next;
          this.lastError = null;
          this.onSwap(prev?.id ?? null, next.id);
          prev?.close();
        } catch (e) {
          this.lastError = (e as Error).message;
        }
      })().finally(() => {
        this.swapping = null;
      });
    }
    return this.swapping;
  }

  start(pollMs = 500): void {
    this.timer ??= setInterval(() => void this.refresh(), pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.swapping;
    this.current?.close();
    this.current = null;
  }
}
