import type { SnapshotHolder } from '../../warehouse/snapshot.js';
import type { StateStore } from '../../warehouse/state.js';

/** What readiness last found: a snapshot mounted, the state store answering. */
export interface ReadinessState {
  ready: boolean;
  snapshot_id: string | null;
  checks: { snapshot: boolean; state_store: boolean };
  checked_at: string;
}

/**
 * Readiness computed off the request path: at start, after every snapshot mount and on a timer
 * (`everyMs`), never per request, so a load balancer probing `/v1/health/ready` as often as it
 * likes costs a read of this object.
 */
export class Readiness {
  private current: ReadinessState;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly snapshots: Pick<SnapshotHolder, 'snapshot'>,
    private readonly state: Pick<StateStore, 'ping'>,
    private readonly now: () => Date,
  ) {
    this.current = { ready: false, snapshot_id: null, checks: { snapshot: false, state_store: false }, checked_at: now().toISOString() };
  }

  get last(): ReadinessState {
    return this.current;
  }

  /** Checks once now (concurrent calls share one check). */
  refresh(): Promise<void> {
    this.running ??= (async () => {
      const snap = this.snapshots.snapshot;
      const stateOk = await this.state.ping().catch(() => false);
      this.current = { ready: snap !== null && stateOk, snapshot_id: snap?.id ?? null, checks: { snapshot: snap !== null, state_store: stateOk }, checked_at: this.now().toISOString() };
    })().finally(() => {
      this.running = null;
    });
    return this.running;
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
