import { statfs } from 'node:fs/promises';
import { snapshotFileProblems, type SnapshotHolder } from '../../warehouse/snapshot.js';
import type { StateStore } from '../../warehouse/tenant_state.js';

/** What readiness last found: each check, and a sentence per problem naming what is wrong. */
export interface ReadinessState {
  ready: boolean;
  snapshot_id: string | null;
  checks: { snapshot: boolean; version_files: boolean; state_store: boolean; disk: boolean };
  /** One line per failing check: the file missing or damaged, the mount error, the free space. */
  problems: string[];
  /**
   * What is served degraded, ready nonetheless: dataset versions left out of the mount (damaged
   * or missing files: answers needing them say so), a newer published snapshot that could not be
   * mounted while the last good one is served. Named by dataset, version and snapshot id only.
   */
  warnings: string[];
  checked_at: string;
}

export interface ReadinessOptions {
  /** The data directory whose free space is checked. */
  dataDir: string;
  /** Below this many free bytes the service is not ready (`RCM_MIN_FREE_MB`): writes would fail. */
  minFreeBytes: number;
  /** Free bytes on the data dir's file system (injected in tests). */
  freeBytes?: (dir: string) => Promise<number>;
}

const freeBytesOf = async (dir: string): Promise<number> => {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
};

/**
 * Readiness computed off the request path: at start, after every snapshot mount and on a timer
 * (`everyMs`), never per request, so a load balancer probing `/v1/health/ready` as often as it
 * likes costs a read of this object. It checks that a snapshot is mounted (or names why the
 * published one could not be), that every version file it serves is still there and unchanged,
 * that the state store answers, and that the data dir has room for writes.
 */
export class Readiness {
  private current: ReadinessState;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly snapshots: Pick<SnapshotHolder, 'snapshot' | 'lastError'>,
    private readonly state: Pick<StateStore, 'ping'>,
    private readonly now: () => Date,
    private readonly o: ReadinessOptions,
  ) {
    this.current = { ready: false, snapshot_id: null, checks: { snapshot: false, version_files: false, state_store: false, disk: false }, problems: ['not checked yet'], warnings: [], checked_at: now().toISOString() };
  }

  get last(): ReadinessState {
    return this.current;
  }

  /** Checks once now (concurrent calls share one check). */
  refresh(): Promise<void> {
    this.running ??= this.check()
      .then((s) => {
        this.current = s;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async check(): Promise<ReadinessState> {
    const problems: string[] = [];
    const snap = this.snapshots.snapshot;
    if (!snap) problems.push(this.snapshots.lastError ? `the published snapshot could not be mounted: ${this.snapshots.lastError}` : 'no snapshot is published yet: run `rcm seed` or `rcm ingest`');
    const fileProblems = snap ? await snapshotFileProblems(snap) : [];
    problems.push(...fileProblems);
    const stateOk = await this.state.ping().catch(() => false);
    if (!stateOk) problems.push('the state store does not answer');
    const free = await (this.o.freeBytes ?? freeBytesOf)(this.o.dataDir).catch(() => null);
    const diskOk = free !== null && free >= this.o.minFreeBytes;
    if (!diskOk) {
      problems.push(free === null ? `the free space of ${this.o.dataDir} cannot be read` : `${Math.floor(free / 1048576)} MB free in ${this.o.dataDir}, below RCM_MIN_FREE_MB (${Math.floor(this.o.minFreeBytes / 1048576)}): writes would fail`);
    }
    const checks = { snapshot: snap !== null, version_files: snap !== null && fileProblems.length === 0, state_store: stateOk, disk: diskOk };
    const warnings = [
      ...(snap?.unmounted ?? []).map((u) => `${u.dataset} ${u.version} is not served: ${u.reason}`),
      ...(snap && this.snapshots.lastError ? [`the published snapshot could not be mounted (${this.snapshots.lastError}); still serving ${snap.id}`] : []),
    ];
    return { ready: problems.length === 0, snapshot_id: snap?.id ?? null, checks, problems, warnings, checked_at: this.now().toISOString() };
  }

  start(everyMs: number): void {
    this.timer = setInterval(() => void this.refresh(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
