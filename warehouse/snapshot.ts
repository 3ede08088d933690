import { open as openFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBValue } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { DomainError } from './errors.js';
import { approxBytes } from './sizeof.js';
import { quoteIdent, quoteString } from './sql_quote.js';
import { tablesOf, viewName, type DatasetVersion, type Manifest } from './manifest.js';
import type { Warehouse } from './store.js';
import { ownValue } from '../lib/own.js';
import { SidecarVersionError } from '../lib/sidecar/block.js';

/**
 * The ids of the registered datasets. The warehouse cannot import the registry (a floor above), so
 * the registry declares them by augmenting this interface (`datasets/registry.ts`); with it in the
 * program, a mistyped dataset id in `has` or `versions` fails tsc.
 */
export interface RegisteredDatasets {}
/** A registered dataset's id (any string until the registry declares them). */
export type DatasetName = keyof RegisteredDatasets extends never ? string : keyof RegisteredDatasets & string;

/**
 * Read access to one immutable snapshot. Queries in `datasets/<id>/queries.ts` take this, never
 * Koa; the view named after each dataset id unions all its loaded versions (column `version`).
 */
export interface SnapshotReader {
  readonly id: string;
  readonly manifest: Manifest;
  /** The warehouse directory the version files live in (absent for readers outside one). */
  readonly location?: string;
  /** Runs read-only SQL with `$1`-style parameters; BIGINTs come back as numbers. */
  all<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]>;
  /**
   * Memoises a computation for the life of this snapshot (a snapshot never changes, so anything
   * derived from it stays true until the next one is mounted). Entries keyed by request input
   * live in an LRU bounded by their approximate bytes; `pin` keeps a whole-table index (its key
   * names only datasets and versions, never request input) for the life of the snapshot.
   */
  memo<T>(key: string, compute: () => Promise<T>, opts?: { pin?: boolean }): Promise<T>;
  /** Loaded versions of a dataset, oldest effective first (empty when not loaded). */
  versions(dataset: DatasetName): DatasetVersion[];
  has(dataset: DatasetName): boolean;
  /**
   * Runs SQL whose every column is a non-null INTEGER and returns the columns as Int32Arrays,
   * copied from DuckDB's vectors without a JS value per cell (whole-table indexes of millions of
   * rows). Optional: readers without it fall back to row queries.
   */
  int32Columns?(sql: string, params?: DuckDBValue[]): Promise<{ rows: number; columns: Int32Array[] }>;
  /**
   * The qualified name of one version's own table (in its attached file, not the view over every
   * version): a query on it can use the file's indexes, which DuckDB never uses through a view.
   * Undefined when the version or table is not mounted, or the reader has no attached files.
   */
  versionTable?(dataset: DatasetName, version: string, table: string): string | undefined;
  /**
   * Runs read-only SQL and hands its rows to `each` one chunk (about 2,048 rows) at a time, each
   * row an array of values in the order of `columns` (BIGINTs as numbers), never holding the
   * whole result. For whole-table reads that keep a compact form of each row. Optional:
   * `readInChunks` falls back to `all` for readers without it.
   */
  eachChunk?(sql: string, params: DuckDBValue[], each: (rows: unknown[][], columns: string[]) => void): Promise<void>;
  /**
   * Keeps the snapshot mounted past a request's own hold, while work it started goes on (an
   * answer streamed after the handler returned); `release` gives it back. Optional: readers that
   * are never swapped out need neither.
   */
  retain?(): void;
  release?(): void;
}

/**
 * A version's sidecar (`<version file><suffix>`, `lib/sidecar/`) opened by `open` once per
 * snapshot; null for a reader outside a data directory, a version not loaded, a version written
 * without one (its answers come from DuckDB), or a sidecar of a format version this build does not
 * read (`SidecarVersionError`: refused, never misread; counted once as a `refused` fallback, and
 * its answers come from DuckDB until the dataset is ingested again by this build).
 */
export function versionSidecar<T>(snapshot: SnapshotReader, dataset: DatasetName, version: string, suffix: string, open: (path: string) => Promise<T | null>): Promise<T | null> {
  const file = snapshot.versions(dataset).find((v) => v.version === version)?.file;
  if (!file || !snapshot.location) return Promise.resolve(null);
  const refused = (e: unknown) => {
    if (!(e instanceof SidecarVersionError)) throw e;
    // The sidecar's name: `.words.ranges` -> words, `.records` -> records.
    sidecarFallback(snapshot, dataset, suffix.slice(1).split('.')[0]!, 'refused');
    return null;
  };
  return snapshot.memo(`${dataset}:sidecar${suffix}\u0000${version}`, () => open(join(snapshot.location!, `${file}${suffix}`)).catch(refused), { pin: true });
}

/**
 * Why an answer a version's sidecar could have given came from DuckDB: the version has no such
 * sidecar (written before it existed), a block failed to read (the file damaged after it was
 * written), the rows asked span more blocks than the reader reads; or, counted once when a
 * snapshot opens it, the sidecar is of a format version this build does not read (its answers
 * then count as missing).
 */
export type SidecarFallback = 'missing' | 'damaged' | 'wide' | 'refused';

/** Answers left to DuckDB by this process, by dataset, sidecar and reason (`rcm_sidecar_fallbacks_total`). */
const fallbacks = new Map<string, { dataset: string; sidecar: string; reason: SidecarFallback; count: number }>();

/** Counts one answer left to DuckDB; not for a reader outside a data directory (it has no sidecars to miss). */
export function sidecarFallback(snapshot: SnapshotReader, dataset: DatasetName, sidecar: string, reason: SidecarFallback): void {
  if (!snapshot.location) return;
  const key = `${dataset}\u0000${sidecar}\u0000${reason}`;
  let f = fallbacks.get(key);
  if (!f) fallbacks.set(key, (f = { dataset, sidecar, reason, count: 0 }));
  f.count++;
}

/** Every count of `sidecarFallback` so far. */
export const sidecarFallbacks = (): { dataset: string; sidecar: string; reason: SidecarFallback; count: number }[] => [...fallbacks.values()].map((f) => ({ ...f }));

/** `snapshot.eachChunk`, or one chunk of every row from `all` for a reader without it. */
export async function readInChunks(snapshot: SnapshotReader, sql: string, params: DuckDBValue[], each: (rows: unknown[][], columns: string[]) => void): Promise<void> {
  if (snapshot.eachChunk) return snapshot.eachChunk(sql, params, each);
  const rows = await snapshot.all<Record<string, unknown>>(sql, params);
  if (rows.length) each(rows.map((r) => Object.values(r)), Object.keys(rows[0]!));
}

/** Default bytes of each snapshot's per-input memo (`RCM_MEMO_MAX_MB`). */
export const MEMO_MAX_BYTES = 64 * 1024 * 1024;


/**
 * Reads a whole result as one JSON text built by DuckDB, then `JSON.parse`: much faster than row
 * objects for the 15-20 thousand rows of a full MUE table (first lookup over three 20k-row tables,
 * which builds their indexes: 870 ms with row objects, 180 ms this way; datasets/_ncci_mue/README.md).
 * That is what the first lookup after a snapshot swap pays; later ones are Map reads (~30 us for
 * three settings). For whole-version reads that feed an in-memory index (MUE, AOC).
 */
export async function allAsJson<Row>(snapshot: SnapshotReader, sql: string, params: (string | number)[]): Promise<Row[]> {
  const [res] = await snapshot.all<{ j: string | null }>(`SELECT CAST(to_json(coalesce(list(x), [])) AS VARCHAR) AS j FROM (${sql}) x`, params);
  return res?.j ? (JSON.parse(res.j) as Row[]) : [];
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

/** A version file's size and modification time (what a later check compares). */
export interface VersionFileState {
  size: number;
  mtimeMs: number;
}

/**
 * A version file's state, or what is wrong with it: missing, or not a DuckDB database (its
 * header carries the magic bytes `DUCK` at offset 8; a truncated or overwritten file does not).
 * The reason names no path: answers and the public readiness name the dataset and version, and
 * the path goes to the log only.
 */
export async function versionFileState(path: string): Promise<VersionFileState | string> {
  let st;
  try {
    st = await stat(path);
  } catch {
    return 'its version file is missing';
  }
  const head = Buffer.alloc(12);
  const fh = await openFile(path, 'r');
  try {
    await fh.read(head, 0, 12, 0);
  } finally {
    await fh.close();
  }
  if (head.subarray(8, 12).toString('latin1') !== 'DUCK') return 'its version file is not a DuckDB database (damaged or overwritten)';
  return { size: st.size, mtimeMs: st.mtimeMs };
}

/** A mounted version file: its state at the mount and the dataset version it holds. */
export interface MountedFile extends VersionFileState {
  /** `<dataset> <version>`, what a message names instead of the path. */
  label: string;
}

/**
 * What is wrong with a mounted snapshot's files now: one line per dataset version whose file is
 * missing, damaged, or changed since the mount (version files are immutable; a change means
 * someone wrote to one).
 */
export async function snapshotFileProblems(s: Pick<MountedSnapshot, 'files'>): Promise<string[]> {
  const out: string[] = [];
  for (const [path, was] of s.files) {
    const now = await versionFileState(path).catch(() => 'its version file cannot be read');
    const problem = typeof now === 'string' ? now : now.size !== was.size || now.mtimeMs !== was.mtimeMs ? 'its version file changed after it was mounted' : null;
    if (problem === null) continue;
    out.push(`${was.label}: ${problem}`);
  }
  return out;
}

/** A dataset version left out of a mount: its file could not be used. */
export interface Unmounted {
  dataset: string;
  version: string;
  reason: string;
  /** The file's path (for the log, never for an answer). */
  path: string;
}

/** A snapshot attached read-only in an in-memory DuckDB, with a small connection pool. */
export class MountedSnapshot implements SnapshotReader {
  private readonly pinned = new Map<string, Promise<unknown>>();
  private readonly memos: LRUCache<string, { value: unknown }>;
  private readonly inflight = new Map<string, Promise<unknown>>();
  /** Per connection: prepared statements by SQL text, and the tail of its queue. */
  private readonly prepared: Map<string, Promise<DuckDBPreparedStatement>>[];
  private readonly queues: Promise<unknown>[];
  private next = 0;
  private refs = 0;
  private closing = false;

  private constructor(
    readonly id: string,
    readonly manifest: Manifest,
    readonly location: string,
    private readonly instance: DuckDBInstance,
    private readonly conns: DuckDBConnection[],
    memoMaxBytes: number,
    /** Each attached version file (absolute path) as it was when mounted: what readiness compares against. */
    readonly files: Map<string, MountedFile>,
    /** Dataset versions left out because their file could not be used (the rest is served, degraded where it needs them). */
    readonly unmounted: Unmounted[] = [],
    /** `<dataset>\u0000<version>\u0000<table>` to its qualified name in the attached file. */
    private readonly tableNames = new Map<string, string>(),
  ) {
    this.memos = new LRUCache({ maxSize: memoMaxBytes, sizeCalculation: (v, k) => Math.max(1, approxBytes(v.value) + k.length * 2) });
    this.prepared = conns.map(() => new Map());
    this.queues = conns.map(() => Promise.resolve());
  }

  /**
   * Mounts `manifest`'s version files read-only. `opts.datasets`: only these datasets are checked
   * and attached (a one-shot command that reads a few, such as `rcm remit explain`, skips the cost
   * of the rest); the others are absent from the mounted manifest, as a dataset never loaded is,
   * and are not `unmounted` (that lists files that could not be used).
   */
  static async open(wh: Warehouse, manifest: Manifest, opts: { connections?: number; threads?: number; memoMaxBytes?: number; datasets?: readonly string[] } = {}): Promise<MountedSnapshot> {
    // Every version file is checked before DuckDB sees it. A missing or damaged one leaves out its
    // dataset version (named in `unmounted`, dataset and version, the path for the log only): the
    // other datasets are served, and an answer that needs the one left out says it is not loaded.
    const files = new Map<string, MountedFile>();
    const unmounted: Unmounted[] = [];
    const served: Record<string, DatasetVersion[]> = {};
    const only = opts.datasets ? new Set(opts.datasets) : null;
    for (const [dataset, versions] of Object.entries(manifest.datasets)) {
      if (only && !only.has(dataset)) continue;
      for (const v of versions) {
        const path = wh.path(v.file);
        const found = await versionFileState(path).catch(() => 'its version file cannot be read');
        if (typeof found === 'string') {
          unmounted.push({ dataset: v.dataset, version: v.version, reason: found, path });
          continue;
        }
        files.set(path, { ...found, label: `${v.dataset} ${v.version}` });
        (served[dataset] ??= []).push(v);
      }
    }
    const instance = await DuckDBInstance.create(':memory:', { threads: String(opts.threads ?? 2) });
    const conn = await instance.connect();
    const tableNames = new Map<string, string>();
    for (const [dataset, versions] of Object.entries(served)) {
      if (versions.length === 0) continue;
      // One view per table over every version holding it (attach aliases cannot collide with
      // view names: they carry an '@'). A file DuckDB cannot attach (its header is right, its
      // contents are not) is left out like a missing one.
      const parts = new Map<string, string[]>();
      for (const [i, v] of versions.entries()) {
        const alias = `${dataset}@${i}`;
        try {
          await conn.run(`ATTACH ${quoteString(wh.path(v.file))} AS ${quoteIdent(alias)} (READ_ONLY)`);
        } catch (e) {
          unmounted.push({ dataset, version: v.version, reason: 'its version file cannot be attached (damaged)', path: `${wh.path(v.file)}: ${(e as Error).message}` });
          files.delete(wh.path(v.file));
          served[dataset] = (served[dataset] ?? []).filter((x) => x !== v);
          continue;
        }
        for (const t of tablesOf(v)) {
          const list = parts.get(t) ?? [];
          const own = `${quoteIdent(alias)}.main.${quoteIdent(t)}`;
          tableNames.set(`${dataset}\u0000${v.version}\u0000${t}`, own);
          list.push(`SELECT * FROM ${own}`);
          parts.set(t, list);
        }
      }
      for (const [t, list] of parts) await conn.run(`CREATE VIEW ${quoteIdent(viewName(dataset, t))} AS ${list.join(' UNION ALL BY NAME ')}`);
    }
    const conns = [conn];
    for (let i = 1; i < (opts.connections ?? 4); i++) conns.push(await instance.connect());
    const mounted: Manifest = unmounted.length || only ? { ...manifest, datasets: Object.fromEntries(Object.entries(served).filter(([, v]) => v.length)) } : manifest;
    return new MountedSnapshot(manifest.id, mounted, resolve(wh.dir), instance, conns, opts.memoMaxBytes ?? MEMO_MAX_BYTES, files, unmounted, tableNames);
  }

  versionTable(dataset: DatasetName, version: string, table: string): string | undefined {
    return this.tableNames.get(`${dataset}\u0000${version}\u0000${table}`);
  }

  /**
   * Parameterised queries are prepared once per connection and reused (planning a view over the
   * attached version files costs about as much as running a point query). Each connection runs
   * one query at a time, so a statement's bindings never interleave.
   */
  async all<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]> {
    const rows = await this.onConnection(async (conn, i) => {
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
    });
    return rows.map((r) => toPlain(r) as T);
  }

  /**
   * Runs `work` on the next connection of the pool, after that connection's earlier work: each
   * connection runs one query at a time, so a statement's bindings and a streamed result never
   * interleave with another's.
   */
  private onConnection<T>(work: (conn: DuckDBConnection, i: number) => Promise<T>): Promise<T> {
    const i = this.next++ % this.conns.length;
    const run = () => work(this.conns[i]!, i);
    const result = this.queues[i]!.then(run, run);
    this.queues[i] = result.catch(() => undefined);
    return result;
  }

  memo<T>(key: string, compute: () => Promise<T>, opts: { pin?: boolean } = {}): Promise<T> {
    if (opts.pin) {
      let p = this.pinned.get(key) as Promise<T> | undefined;
      if (!p) {
        p = compute();
        this.pinned.set(key, p);
        // A failure is not remembered: the next call computes again.
        p.catch(() => this.pinned.delete(key));
      }
      return p;
    }
    const hit = this.memos.get(key);
    if (hit) return Promise.resolve(hit.value as T);
    let p = this.inflight.get(key) as Promise<T> | undefined;
    if (!p) {
      p = compute();
      this.inflight.set(key, p);
      p.then(
        (value) => {
          this.inflight.delete(key);
          this.memos.set(key, { value });
        },
        () => this.inflight.delete(key),
      );
    }
    return p;
  }

  int32Columns(sql: string, params: DuckDBValue[] = []): Promise<{ rows: number; columns: Int32Array[] }> {
    return this.onConnection(async (conn) => {
      const stmt = await conn.prepare(sql);
      if (params.length) stmt.bind(params);
      const res = await stmt.run();
      const rows = res.rowCount;
      const width = res.columnCount;
      const columns = Array.from({ length: width }, () => new Int32Array(rows));
      let at = 0;
      for (let k = 0; k < res.chunkCount; k++) {
        const chunk = res.getChunk(k);
        const n = chunk.rowCount;
        for (let c = 0; c < width; c++) {
          const items = (chunk.getColumnVector(c) as unknown as { items?: Int32Array }).items;
          if (!(items instanceof Int32Array)) throw new Error(`int32Columns: column ${c} is not INTEGER`);
          columns[c]!.set(items.subarray(0, n), at);
        }
        at += n;
      }
      return { rows, columns };
    });
  }

  eachChunk(sql: string, params: DuckDBValue[], each: (rows: unknown[][], columns: string[]) => void): Promise<void> {
    // The connection is this read's until its last chunk.
    return this.onConnection(async (conn) => {
      const stmt = await conn.prepare(sql);
      if (params.length) stmt.bind(params);
      const res = await stmt.stream();
      const columns = res.columnNames();
      for await (const rows of res.yieldRowsJs()) each(rows.map((r) => r.map(toPlain)), columns);
    });
  }

  /** Bytes (estimated) held by the per-input memo. */
  get memoBytes(): number {
    return this.memos.calculatedSize;
  }

  versions(dataset: DatasetName): DatasetVersion[] {
    return ownValue(this.manifest.datasets, dataset) ?? [];
  }

  has(dataset: DatasetName): boolean {
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
    private readonly opts: {
      onSwap?: (from: string | null, to: string) => void;
      memoMaxBytes?: number;
      onMount?: (s: MountedSnapshot) => Promise<unknown> | void;
      /** A mount that failed (a corrupt CURRENT or manifest, an unreadable file): told once per distinct error. */
      onError?: (message: string) => void;
    } = {},
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
          const next = await MountedSnapshot.open(this.wh, manifest, { memoMaxBytes: this.opts.memoMaxBytes });
          // Whole-table indexes are built before the new snapshot serves, so no request waits for them.
          await this.opts.onMount?.(next);
          const prev = this.current;
          this.current = next;
          this.lastError = null;
          this.opts.onSwap?.(prev?.id ?? null, next.id);
          prev?.close();
        } catch (e) {
          // The log gets the error as thrown; readiness and a 503 get our own words (a DuckDB or
          // file-system error names paths and checksums).
          const message = (e as Error).message;
          const said = e instanceof DomainError ? message : 'its files could not be attached (details in the log)';
          if (said !== this.lastError) this.opts.onError?.(message);
          this.lastError = said;
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
