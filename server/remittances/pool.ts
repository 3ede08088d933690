import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Lane, type LaneRefusal } from '../../lib/lane.js';
import { DomainError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { StreamRelay, type StreamedJson } from '../json_bytes.js';
import { BodyBudget } from '../pipeline/body_budget.js';
import { fromWire, runExplanation, type ExplainSpec, type FromWorker, type JobRunners, type ToWorker } from './job.js';

/**
 * Remittances explained off the event loop: a 25 MB 835 takes seconds of CPU, which on the
 * server's thread would stall every other request. Tenants share `workers` threads in turns
 * (their own queues, served round-robin, none holding every thread); every playground key shares
 * one thread more, one explanation at a time across all of them and small files only (a request
 * while it is busy is 503). The work admitted at once is counted in segments (`RCM_REMIT_CONCURRENT_SEGMENTS`),
 * held until the answer is written or its reader gone; each answer is streamed at the reader's pace.
 */

/** Who asks: explanations are shared fairly between tenants, and playground keys have a thread of their own. */
export interface ExplainCaller {
  tenant: string;
  playground: boolean;
}

export interface ExplainCall {
  caller: ExplainCaller;
  /** The snapshot the request read: explained against the same one (a worker mounts it from its files). */
  snapshot: SnapshotReader;
  bytes: Buffer;
  spec: Omit<ExplainSpec, 'maxSegments' | 'maxClaims'>;
}

/** Explains a remittance: the answer as a stream (the caller's mistakes, 413/422/503, thrown before it). */
export interface RemitExplainer {
  /** What the headers alone decide (a playground key's size, a full lane): thrown before the body is read. */
  preflight(caller: ExplainCaller, declaredBytes: number | null): void;
  explain(call: ExplainCall): Promise<StreamedJson>;
  close(): Promise<void>;
  /** Segments admitted now (metrics, tests). */
  readonly inFlight: number;
}

export interface RemitPoolOptions {
  /** `RCM_REMIT_WORKERS`: threads for tenants (the playground has one more of its own); 0 explains in process. */
  workers: number;
  /** The jobs it runs by task (default: the 835 explanation alone), and the thread script that knows the same (default `explain_worker.mjs`). */
  runners?: JobRunners;
  workerScript?: URL;
  /** `RCM_REMIT_MAX_SEGMENTS`, `RCM_REMIT_MAX_CLAIMS`: a file with more is 413. */
  maxSegments: number;
  maxClaims: number;
  /** `RCM_REMIT_CONCURRENT_SEGMENTS`: segments being explained at once (503 past it). */
  concurrentSegments: number;
  /** `RCM_REMIT_PLAYGROUND_MAX_MB` (bytes): the largest 835 a playground key may send. */
  playgroundMaxBytes: number;
  /** Explanations one tenant, and all tenants, may have waiting (503 past them). */
  maxQueued: number;
  maxQueuedTotal: number;
  /** Heap ceiling of each thread (MB). */
  memoryMb: number;
}

/**
 * Measured defaults (docs/performance.md, "Remittances"): a 25 MB 835 is 900,000 segments (44,000
 * short envelopes) to 1,365,000 (65,000 claims of five lines); 1,500,000 segments admits any file
 * under the byte limit, or many small ones, at about 18 s of a thread for the largest.
 */
export const DEFAULT_REMIT_POOL: RemitPoolOptions = {
  workers: Math.max(1, availableParallelism()),
  maxSegments: 1_500_000,
  maxClaims: 100_000,
  concurrentSegments: 1_500_000,
  playgroundMaxBytes: 1024 * 1024,
  maxQueued: 16,
  maxQueuedTotal: 32,
  memoryMb: 1024,
};

const busy = (message: string) => new DomainError('service_busy', message, { headers: { 'retry-after': '5' } });

function refusalOf(r: LaneRefusal | null, playground: boolean): DomainError | null {
  if (!r) return null;
  if (playground) return busy('the playground explains one remittance at a time for every playground key: retry in a few seconds, or use a tenant key');
  if (r.reason === 'tenant_queue') return busy(`${r.waiting} of your remittances are waiting to be explained; retry when one finishes`);
  return busy(`${r.waiting} remittances are waiting to be explained; retry shortly, or explain large files with rcm remit explain`);
}

/** The checks every explainer makes before any work: the playground's size, then the budget by segments. */
class Admission {
  readonly budget: BodyBudget;
  constructor(readonly o: RemitPoolOptions) {
    this.budget = new BodyBudget(Math.max(o.concurrentSegments, o.maxSegments), Number.MAX_SAFE_INTEGER);
  }

  checkSize(caller: ExplainCaller, bytes: number | null): void {
    const mb = (b: number) => `${Math.round((b / 1024 / 1024) * 10) / 10} MB`;
    if (caller.playground && bytes !== null && bytes > this.o.playgroundMaxBytes) {
      throw new DomainError('payload_too_large', `a playground key explains 835s of at most ${mb(this.o.playgroundMaxBytes)} (RCM_REMIT_PLAYGROUND_MAX_MB); this one is ${mb(bytes)}: use a tenant's key`);
    }
  }

  reserve(segments: number): () => void {
    try {
      return this.budget.reserve('explain', segments);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      throw busy(`other remittances are being explained now (RCM_REMIT_CONCURRENT_SEGMENTS): this one's ${segments.toLocaleString('en-US')} segments do not fit; try again shortly, or explain large files with rcm remit explain`);
    }
  }

  spec(call: ExplainCall): ExplainSpec {
    return { ...call.spec, maxSegments: this.o.maxSegments, maxClaims: this.o.maxClaims };
  }
}

/**
 * Explains on the calling thread (the CLI, `RCM_REMIT_WORKERS=0`, and the reference the worker
 * pool is held byte-identical to): the same job, the same limits and budget, the same stream.
 */
export class InProcessExplainer implements RemitExplainer {
  private readonly admission: Admission;
  constructor(o: RemitPoolOptions = DEFAULT_REMIT_POOL) {
    this.admission = new Admission(o);
  }

  get inFlight(): number {
    return this.admission.budget.inFlight;
  }

  preflight(caller: ExplainCaller, declaredBytes: number | null): void {
    this.admission.checkSize(caller, declaredBytes);
  }

  explain(call: ExplainCall): Promise<StreamedJson> {
    this.admission.checkSize(call.caller, call.bytes.length);
    return new Promise<StreamedJson>((resolve, reject) => {
      let release = () => undefined as void;
      const relay = new StreamRelay();
      let started = false;
      const spec = this.admission.spec(call);
      const run = (this.admission.o.runners ?? { explain: runExplanation })[spec.task ?? 'explain'];
      if (!run) return reject(new Error(`no ${spec.task} job is known here`));
      // The snapshot stays mounted while the answer is written, past the request's own hold.
      call.snapshot.retain?.();
      run(call.bytes, spec, async () => call.snapshot, {
        admit: async ({ segments }) => {
          release = this.admission.reserve(segments);
          return true;
        },
        ready: () => {
          started = true;
          resolve(relay.stream);
        },
        chunk: (text) => relay.push(Buffer.from(text, 'utf8')),
      })
        .then(
          () => relay.end(),
          (e: unknown) => (started ? relay.fail(e instanceof Error ? e : new Error(String(e))) : reject(e)),
        )
        .finally(() => {
          release();
          call.snapshot.release?.();
        });
    });
  }

  async close(): Promise<void> {}
}

interface PoolJob {
  id: number;
  tenant: string;
  call: ExplainCall;
  spec: ExplainSpec;
  relay: StreamRelay | null;
  release: () => void;
  started: boolean;
  resolve(s: StreamedJson): void;
  reject(e: unknown): void;
}

interface Slot {
  worker: Worker | null;
  job: PoolJob | null;
}

type PoolLane = Lane<PoolJob, Slot> & { playground: boolean };

/** The worker threads, their lanes and the jobs' conversations with them. */
export class WorkerRemitExplainer implements RemitExplainer {
  private readonly admission: Admission;
  private readonly tenants: PoolLane;
  private readonly playground: PoolLane;
  private nextId = 1;
  private closed = false;
  /** Threads started so far, replacements included (tests read it). */
  started = 0;

  constructor(private readonly o: RemitPoolOptions = DEFAULT_REMIT_POOL) {
    this.admission = new Admission(o);
    const n = Math.max(1, Math.floor(o.workers));
    const lane = (size: number, rules: ConstructorParameters<typeof Lane>[1], playground: boolean): PoolLane => Object.assign(new Lane<PoolJob, Slot>(size, rules, () => ({ worker: null, job: null })), { playground });
    this.tenants = lane(n, { perTenantRunning: Math.max(1, n - 1), perTenantQueued: o.maxQueued, perTenantInFlight: Infinity, totalQueued: o.maxQueuedTotal }, false);
    this.playground = lane(1, { perTenantRunning: 1, perTenantQueued: 1, perTenantInFlight: 1, totalQueued: 1, totalInFlight: 1 }, true);
  }

  get inFlight(): number {
    return this.admission.budget.inFlight;
  }

  preflight(caller: ExplainCaller, declaredBytes: number | null): void {
    if (this.closed) throw busy('the server is shutting down');
    this.admission.checkSize(caller, declaredBytes);
    const lane = caller.playground ? this.playground : this.tenants;
    const refused = refusalOf(lane.refusal(caller.tenant), lane.playground);
    if (refused) throw refused;
  }

  explain(call: ExplainCall): Promise<StreamedJson> {
    if (!call.snapshot.location) return Promise.reject(new Error('a remittance thread mounts the snapshot from its files: this snapshot has none'));
    try {
      // Again with the body read: the lane may have filled while it arrived.
      this.preflight(call.caller, call.bytes.length);
    } catch (e) {
      return Promise.reject(e);
    }
    const lane = call.caller.playground ? this.playground : this.tenants;
    return new Promise<StreamedJson>((resolve, reject) => {
      lane.enqueue({ id: this.nextId++, tenant: call.caller.tenant, call, spec: this.admission.spec(call), relay: null, release: () => undefined, started: false, resolve, reject });
      this.pump(lane);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopping: Promise<number>[] = [];
    for (const lane of [this.tenants, this.playground]) {
      for (const job of lane.drain()) job.reject(busy('the server is shutting down'));
      for (const s of lane.slots) {
        if (s.job) this.fail(lane, s, new Error('the server is shutting down'));
        if (s.worker) stopping.push(s.worker.terminate());
        s.worker = null;
      }
    }
    await Promise.all(stopping);
  }

  private post(slot: Slot, m: ToWorker, transfer: ArrayBuffer[] = []): void {
    slot.worker?.postMessage(m, transfer);
  }

  private spawn(lane: PoolLane, slot: Slot): Worker {
    // Not the server's own flags (a loader such as tsx's): the entry registers its own.
    const w = new Worker(this.o.workerScript ?? new URL('./explain_worker.mjs', import.meta.url), { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: this.o.memoryMb } });
    w.unref();
    this.started++;
    w.on('message', (m: FromWorker) => {
      if (slot.worker === w && slot.job?.id === m.id) this.onMessage(lane, slot, m);
    });
    const died = (why: string) => {
      if (slot.worker !== w) return;
      slot.worker = null;
      if (slot.job) this.fail(lane, slot, new Error(why));
    };
    w.on('error', (e) => died(/memory/i.test(String(e?.message)) ? 'the explanation needed more memory than a remittance thread is allowed' : 'the remittance thread failed'));
    w.on('exit', () => died('the remittance thread stopped'));
    return w;
  }

  private onMessage(lane: PoolLane, slot: Slot, m: FromWorker): void {
    const job = slot.job!;
    switch (m.kind) {
      case 'counts':
        try {
          job.release = this.admission.reserve(m.segments);
          this.post(slot, { kind: 'admitted', id: job.id, go: true });
        } catch (e) {
          this.post(slot, { kind: 'admitted', id: job.id, go: false });
          this.finish(lane, slot);
          job.reject(e);
        }
        break;
      case 'ready': {
        job.started = true;
        job.relay = new StreamRelay(() => {
          // The answer will never be written (or its reader left): the thread stops the job.
          if (slot.job !== job) return;
          this.post(slot, { kind: 'abort', id: job.id });
          this.finish(lane, slot);
        });
        job.resolve(job.relay.stream);
        break;
      }
      case 'chunk':
        job.relay!.push(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength)).then(
          () => this.post(slot, { kind: 'credit', id: job.id }),
          () => {
            if (slot.job !== job) return;
            this.post(slot, { kind: 'abort', id: job.id });
            this.finish(lane, slot);
          },
        );
        break;
      case 'done':
        job.relay?.end();
        this.finish(lane, slot);
        break;
      case 'error':
        this.fail(lane, slot, fromWire(m.error));
        break;
    }
  }

  /** A job ends with an error: its caller hears it (before the answer started) or its stream fails. */
  private fail(lane: PoolLane, slot: Slot, e: Error): void {
    const job = slot.job;
    if (!job) return;
    this.finish(lane, slot);
    if (job.started) job.relay?.fail(e);
    else job.reject(e);
  }

  /** The slot is free again: the job's budget and its lane turn are given back, the next job starts. */
  private finish(lane: PoolLane, slot: Slot): void {
    const job = slot.job;
    if (!job) return;
    slot.job = null;
    job.release();
    lane.finished(job);
    this.pump(lane);
  }

  private pump(lane: PoolLane): void {
    if (this.closed) return;
    lane.fill(
      (slot) => !slot.job,
      (slot, job) => {
        slot.worker ??= this.spawn(lane, slot);
        slot.job = job;
        // The bytes are copied to the thread (the request keeps its own until the answer is sent).
        this.post(slot, { kind: 'start', id: job.id, dataDir: job.call.snapshot.location!, snapshotId: job.call.snapshot.id, bytes: new Uint8Array(job.call.bytes), spec: job.spec });
      },
    );
  }
}
