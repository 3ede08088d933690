import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ReplicaRegistry } from '../../warehouse/replicas.js';
import type { Logger } from '../logger.js';

/** How often a server says which snapshot it serves: well inside the 10 minutes a prune waits for. */
export const HEARTBEAT_EVERY_MS = 60_000;

/**
 * This server's heartbeat in the state store: which snapshot it serves, at start, on every swap
 * and every minute, so `rcm snapshots prune` never removes the files a replica has mounted. A
 * failed beat is logged once until one succeeds (the state store's own readiness says more).
 */
export class Heartbeat {
  readonly replica = `${hostname()}/${process.pid}/${randomBytes(2).toString('hex')}`;
  private timer: NodeJS.Timeout | null = null;
  private failing = false;

  constructor(
    private readonly registry: ReplicaRegistry,
    private readonly served: () => string | null,
    private readonly now: () => Date,
    private readonly logger: Logger,
  ) {}

  async beat(): Promise<void> {
    const id = this.served();
    if (!id) return;
    try {
      await this.registry.beat(this.replica, id, this.now());
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn({ err }, 'replica heartbeat not recorded');
      this.failing = true;
    }
  }

  start(everyMs = HEARTBEAT_EVERY_MS): void {
    this.timer ??= setInterval(() => void this.beat(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
