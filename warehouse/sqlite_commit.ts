import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';

/**
 * `RCM_STATE_SYNC`: how a commit reaches the disk. `full` (the default): SQLite fsyncs the WAL
 * before COMMIT returns, so an acknowledged write survives process death and power loss.
 * `normal`: COMMIT returns once the WAL frames are written to the OS (no fsync; the WAL is synced
 * at checkpoints), so an acknowledged write survives the process being killed but the last
 * commits before a power loss or OS crash may be lost (never a corrupt database: WAL mode).
 */
export type SyncMode = 'full' | 'normal';

/** Turns of the event loop a group commit waits at most for more writes while they keep arriving. */
const GATHER_TURNS = 4;

/** Default `RCM_STATE_BATCH_MAX`: writes one group commit takes at most. */
export const DEFAULT_BATCH_MAX = 256;

/**
 * Serialises access to the one SQLite connection: a transaction that awaits between statements
 * must not let another request's statements run inside it (they would share its uncommitted
 * writes). Each statement itself is synchronous, so the lock is held for microseconds.
 */
export class Lock {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * Each SQL text prepared once per connection: preparing a statement cost more than running it
 * (9% of an agent submit's server CPU). Bounded, though every statement the store runs has a
 * fixed text; a statement is not re-entered (better-sqlite3 runs each synchronously).
 */
export function cachePreparedStatements(db: Database.Database): void {
  const prepare = db.prepare.bind(db);
  const cache = new LRUCache<string, Database.Statement>({ max: 512 });
  db.prepare = ((sql: string) => {
    let s = cache.get(sql);
    if (!s) {
      s = prepare(sql);
      cache.set(sql, s);
    }
    return s;
  }) as typeof db.prepare;
}

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Whether a committed write tells the store's write listeners (auth caches). */
  notify: boolean;
  /** Commit at the next turn, gathering nothing (the job runner's claims and completions). */
  urgent: boolean;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for one better-sqlite3 connection: writes submitted while the event loop is busy
 * join one transaction and one fsync. A write is a synchronous function of statements; `write`
 * queues it and a flush (a few `setImmediate` turns later, once writes stop arriving: see
 * `schedule`) runs the queued writes in `BEGIN IMMEDIATE ... COMMIT`, each inside
 * its own SAVEPOINT: a write that throws is rolled back alone and only its promise rejects; the
 * others commit. Every promise settles only after COMMIT returned (with `synchronous=FULL`, after
 * the WAL's fsync), so nothing is acknowledged before it is durable. A failed COMMIT rejects the
 * whole batch (nothing of it is on disk). When SQLite itself rolls the transaction back under a
 * failing write (it may on SQLITE_FULL or an I/O error), the batch runs again without that write.
 * The batch is one synchronous block: no read can see it half done, and a read issued after a
 * write's promise settled sees the write.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly begin: Database.Statement;
  private readonly commitStmt: Database.Statement;
  private readonly rollback: Database.Statement;
  private readonly savepoint: Database.Statement;
  private readonly release: Database.Statement;
  private readonly rollbackTo: Database.Statement;
  /** Batches committed and writes in them (tests and the bench read these). */
  readonly stats = { batches: 0, writes: 0 };

  constructor(
    private readonly db: Database.Database,
    private readonly lock: Lock,
    private readonly o: { maxBatch: number; onCommit: () => void },
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commitStmt = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT group_write');
    this.release = db.prepare('RELEASE group_write');
    this.rollbackTo = db.prepare('ROLLBACK TO group_write');
  }

  /** Queues `fn` for the next group commit; settles with its value or error once the batch committed. */
  write<T>(fn: () => T, notify: boolean, urgent = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, notify, urgent });
      this.schedule();
    });
  }

  /**
   * Flushes once writes stop arriving: after each turn of the event loop in which the queue grew,
   * it waits one more (at most GATHER_TURNS in all, or until a batch is full). Requests whose
   * writes are a few awaits behind the first one's (auth, decoding, a read) join its batch instead
   * of the next, so one fsync serves them all: measured at 16 connections, batches of 9.5 writes
   * became 15, roster upserts 11.2-11.8k -> 13.2-13.6k/s and agent submits 8.2k -> 9.1-9.6k/s.
   * A lone write waits two turns of the loop (microseconds). An urgent write (the job runner's,
   * which already batches its claims and completions and measured ~5% slower gathering) ends the
   * wait at the next turn.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    let seen = 0;
    let turns = 0;
    const gather = () => {
      turns++;
      if (this.queue.length > seen && this.queue.length < this.o.maxBatch && turns < GATHER_TURNS && !this.queue.some((w) => w.urgent)) {
        seen = this.queue.length;
        setImmediate(gather);
      } else {
        void this.lock.run(() => this.flush());
      }
    };
    setImmediate(gather);
  }

  /** Commits one batch now (under the lock); what is left waits for the next turn of the loop. */
  private flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.o.maxBatch);
    if (this.queue.length) this.schedule();
    this.commit(batch);
  }

  /** Commits whatever is queued at once (before the connection closes). */
  drain(): void {
    while (this.queue.length) this.commit(this.queue.splice(0, this.o.maxBatch));
  }

  private commit(batch: Pending[]): void {
    const outcomes = new Map<Pending, Outcome>();
    let remaining = batch;
    for (;;) {
      try {
        this.begin.run();
      } catch (error) {
        for (const w of batch) w.reject(error);
        return;
      }
      let restart = false;
      for (const w of remaining) {
        this.savepoint.run();
        try {
          outcomes.set(w, { ok: true, value: w.fn() });
          this.release.run();
        } catch (error) {
          outcomes.set(w, { ok: false, error });
          if (!this.db.inTransaction) {
            // SQLite rolled the whole transaction back: the writes before this one are gone too.
            restart = true;
            break;
          }
          this.rollbackTo.run();
          this.release.run();
        }
      }
      if (!restart) break;
      remaining = remaining.filter((w) => outcomes.get(w)?.ok !== false);
      for (const w of remaining) outcomes.delete(w);
    }
    try {
      this.commitStmt.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      for (const w of batch) w.reject(error);
      return;
    }
    this.stats.batches++;
    this.stats.writes += batch.length;
    let notify = false;
    for (const w of batch) {
      const o = outcomes.get(w)!;
      if (o.ok) {
        notify ||= w.notify;
        w.resolve(o.value);
      } else {
        w.reject(o.error);
      }
    }
    if (notify) this.o.onCommit();
  }
}
