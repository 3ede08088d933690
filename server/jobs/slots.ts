/**
 * Bounded work claimed from a queue, for the job executor's jobs and callback deliveries (it knows
 * nothing of what an item is): at most `size()` items run at once, and up to `ahead()` more
 * wait claimed, so a slot that frees starts the next item at once instead of waiting for a claim
 * to commit. One claimer at a time claims what is missing, all of it together (the state store
 * commits the claims in one group commit, each seeing the ones before it); a finished item frees
 * its slot, starts a waiting one and, when `refill()`, claims again. Items claimed are always
 * started, also while stopping (they are leased).
 * The claimer's guard clears on a later tick: cleared inside an async function's own `finally`, it
 * would clear synchronously when every slot is busy (no await), before `??=` stores the promise,
 * which then stayed set for good and nothing more was ever claimed.
 * Nothing here rejects: a failed claim or run goes to `onError` (a lost state-store connection
 * once ended `rcm serve` through a fill nobody awaited).
 */
export class Slots<T> {
  readonly active = new Set<Promise<void>>();
  /** Claimed, not yet started, in start order: by round, then claim order (see `wait`). */
  private readonly waiting: { item: T; round: number }[] = [];
  /** The round of the item started last: rounds below it are over. */
  private floor = 0;
  /** Per key (`o.key`), the round of its last item waiting. */
  private readonly lastRound = new Map<string, number>();
  private claiming: Promise<void> | null = null;

  constructor(
    private readonly o: {
      size: () => number;
      ahead?: () => number;
      open: () => boolean;
      claim: () => Promise<T | null>;
      /** Whose item it is: items of different keys start round-robin (unset: in claim order). */
      key?: (item: T) => string;
      run: (item: T) => Promise<void>;
      refill: () => boolean;
      onError: (e: unknown) => void;
    },
  ) {}

  /**
   * Resolves once nothing runs, waits or is being claimed (items started meanwhile included): a
   * claim still in flight when a drain began would otherwise start its job after the drain.
   */
  async idle(): Promise<void> {
    while (this.active.size || this.claiming) await Promise.allSettled([...this.active, ...(this.claiming ? [this.claiming] : [])]);
  }

  /**
   * Queues a claimed item: the n-th item of its key still waiting takes round floor + n - 1 (a key
   * with none waiting joins the current round), and it starts after every item of a lower or equal
   * round. Items of one key stay in claim order; with one item per key this is claim order.
   */
  private wait(item: T): void {
    if (!this.o.key) {
      this.waiting.push({ item, round: 0 });
      return;
    }
    const k = this.o.key(item);
    const last = this.lastRound.get(k);
    const round = last === undefined || last < this.floor ? this.floor : last + 1;
    this.lastRound.set(k, round);
    let at = this.waiting.length;
    while (at > 0 && this.waiting[at - 1]!.round > round) at--;
    this.waiting.splice(at, 0, { item, round });
  }

  private start(): void {
    while (this.waiting.length && this.active.size < this.o.size()) {
      const next = this.waiting.shift()!;
      this.floor = next.round;
      if (this.o.key) {
        const k = this.o.key(next.item);
        // Its last item started: the key joins the current round with its next one.
        if (this.lastRound.get(k) === next.round) this.lastRound.delete(k);
      }
      let running: Promise<void>;
      try {
        running = this.o.run(next.item);
      } catch (e) {
        running = Promise.reject(e);
      }
      const p: Promise<void> = running
        .catch(this.o.onError)
        .finally(() => {
          this.active.delete(p);
          this.start();
          if (this.o.refill()) void this.fill();
        });
      this.active.add(p);
    }
  }

  /** Starts what waits and claims what is missing; resolves when the claims are in (never rejects). */
  fill(): Promise<void> {
    this.start();
    return (this.claiming ??= Promise.resolve()
      .then(async () => {
        const room = () => this.o.size() + (this.o.ahead?.() ?? 0) - this.active.size - this.waiting.length;
        while (this.o.open() && room() > 0) {
          const claims = await Promise.allSettled(Array.from({ length: room() }, () => this.o.claim()));
          // Every item claimed is kept, even when a claim beside it failed (it is leased now).
          for (const c of claims) if (c.status === 'fulfilled' && c.value !== null) this.wait(c.value);
          this.start();
          const failed = claims.find((c) => c.status === 'rejected');
          if (failed) throw failed.reason;
          if (claims.some((c) => c.status === 'fulfilled' && c.value === null)) return;
        }
      })
      .catch(this.o.onError)
      .finally(() => (this.claiming = null)));
  }
}
