/**
 * Fair turns for a few worker threads shared by tenants: each tenant has its own queue, a free
 * thread goes to the next tenant in turn (round-robin) that holds fewer threads than its share,
 * and a tenant's queue and the lane's are bounded. Generic over the job (it only reads `tenant`)
 * and the slot (what a thread keeps); the caller starts the work and says when it is finished.
 */

export interface LaneRules {
  /** Threads one tenant may hold at once: fewer than all, so another tenant's job starts at once. */
  perTenantRunning: number;
  /** Jobs one tenant may have waiting. */
  perTenantQueued: number;
  /** Jobs one tenant may have waiting or running (a playground's one at a time). */
  perTenantInFlight: number;
  /** Jobs waiting in the lane, every tenant together. */
  totalQueued: number;
  /** Jobs waiting or running in the lane, every tenant together (a playground lane's one at a time); unbounded when absent. */
  totalInFlight?: number;
}

/** Why a job was refused: the tenant's own in-flight bound, its queue, or the lane's. */
export type LaneRefusal = { reason: 'in_flight' | 'tenant_queue' | 'lane_queue' | 'lane_busy'; waiting: number };

export class Lane<J extends { tenant: string }, S> {
  readonly slots: S[];
  /** Waiting jobs by tenant; the map's order is the round-robin order (a served tenant moves to the back). */
  private readonly waiting = new Map<string, J[]>();
  private readonly running = new Map<string, number>();
  private queued = 0;
  private active = 0;

  constructor(
    size: number,
    private readonly rules: LaneRules,
    slot: () => S,
  ) {
    this.slots = Array.from({ length: size }, slot);
  }

  /** Why `tenant` cannot queue one more job now, or null. */
  refusal(tenant: string): LaneRefusal | null {
    const mine = this.waiting.get(tenant)?.length ?? 0;
    if (mine + (this.running.get(tenant) ?? 0) >= this.rules.perTenantInFlight) return { reason: 'in_flight', waiting: mine };
    if (mine >= this.rules.perTenantQueued) return { reason: 'tenant_queue', waiting: mine };
    if (this.queued >= this.rules.totalQueued) return { reason: 'lane_queue', waiting: this.queued };
    if (this.queued + this.active >= (this.rules.totalInFlight ?? Infinity)) return { reason: 'lane_busy', waiting: this.queued };
    return null;
  }

  enqueue(job: J): void {
    const q = this.waiting.get(job.tenant);
    if (q) q.push(job);
    else this.waiting.set(job.tenant, [job]);
    this.queued++;
  }

  /** The next job to start: the first tenant in turn that holds fewer threads than its share. */
  next(): J | null {
    for (const [tenant, q] of this.waiting) {
      if ((this.running.get(tenant) ?? 0) >= this.rules.perTenantRunning) continue;
      const job = q.shift()!;
      this.waiting.delete(tenant);
      if (q.length) this.waiting.set(tenant, q); // to the back of the turn
      this.queued--;
      this.active++;
      this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
      return job;
    }
    return null;
  }

  /** Starts waiting jobs on the free slots (`free`), tenants in turn, until either runs out. */
  fill(free: (slot: S) => boolean, start: (slot: S, job: J) => void): void {
    for (const slot of this.slots) {
      if (!free(slot)) continue;
      const job = this.next();
      if (!job) return;
      start(slot, job);
    }
  }

  finished(job: J): void {
    this.active--;
    const n = (this.running.get(job.tenant) ?? 1) - 1;
    if (n > 0) this.running.set(job.tenant, n);
    else this.running.delete(job.tenant);
  }

  /** Every waiting job, removed. */
  drain(): J[] {
    const all = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.queued = 0;
    return all;
  }
}
