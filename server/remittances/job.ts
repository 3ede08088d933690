import { parentPort } from 'node:worker_threads';
import { DomainError, ValidationError, type ErrorCode, type Issue } from '../../warehouse/errors.js';
import { MountedSnapshot, type SnapshotReader } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { Trace } from '../trace.js';
import type { PayeeLocation } from './links/index.js';
import type { RemitFormat } from './schemas.js';
import { explanationOf, type ExplainMode } from './service.js';
import { readX12 } from './x12.js';

/**
 * One remittance explanation as a job, run the same way on a worker thread (`serveExplanations`)
 * and in process (`runExplanation` with a channel of the main thread): read the file, refuse it
 * past the work limits, wait until the caller's budget admits its segments, check the caller's
 * query against the snapshot, then write the answer through the channel at the reader's pace.
 */

/** What a remittance thread runs: an 835 explained, an 837 checked (`server/claims/job.ts`), or both and the loop closed (`server/x12_jobs.ts`). */
export type JobTask = 'explain' | 'check' | 'loop';

/** What an explanation needs, as it crosses to a worker thread. */
export interface ExplainSpec {
  /** Default `explain`. */
  task?: JobTask;
  /** `loop`: the 837s the remittance's claims were sent as. */
  claims?: Uint8Array[];
  asOf: string;
  /** The request's time (ms): the answer's `generated_at`, as the pipeline's clock read it. */
  at: number;
  where: PayeeLocation;
  testKey: boolean;
  mode: ExplainMode;
  /** json, posting-csv or worklist-csv (a check: json or csv). */
  format: RemitFormat | 'csv';
  /** Identifiers replaced by tokens stable within the answer. */
  redact: boolean;
  /** `RCM_REMIT_MAX_SEGMENTS`, `RCM_REMIT_MAX_CLAIMS`: a file with more is 413. */
  maxSegments: number;
  maxClaims: number;
}

/** How a running explanation talks to whoever asked for it. */
export interface JobChannel {
  /** The file was read: its work. Resolves true when the budget admitted it (false: stop, the caller answered). */
  admit(counts: { segments: number; claims: number }): Promise<boolean>;
  /** Every check passed: the answer (200) starts. */
  ready(): void;
  /** One part of the answer; resolves when the reader wants more, throws when it is gone. */
  chunk(text: string): Promise<void>;
}

/** One job of a remittance thread: the file, what to do with it, the snapshot, and the channel its answer goes through. */
export type JobRunner = (bytes: Uint8Array, spec: ExplainSpec, snapshot: () => Promise<SnapshotReader>, ch: JobChannel) => Promise<void>;

/** The runners a thread or an in-process explainer knows, by task. */
export type JobRunners = Partial<Record<JobTask, JobRunner>>;

/** A file past the work limits: 413 naming the limit, the setting and the command that takes any size. */
const workLimit = (what: string, n: number, max: number, setting: string, task: JobTask = 'explain') =>
  new DomainError('payload_too_large', `the file has ${n.toLocaleString('en-US')} ${what}; one request ${task === 'explain' ? 'explains' : 'checks'} at most ${max.toLocaleString('en-US')} (${setting}): split it, or ${task === 'explain' ? 'explain it with rcm remit explain' : 'check it with rcm claim check'}`);

/** Refuses a file past the work limits (413), before any work is admitted. */
export function checkLimits(file: { segments: number; claims: number }, spec: ExplainSpec): void {
  const task = spec.task === 'check' ? 'check' : 'explain';
  if (file.segments > spec.maxSegments) throw workLimit('segments', file.segments, spec.maxSegments, 'RCM_REMIT_MAX_SEGMENTS', task);
  if (file.claims > spec.maxClaims) throw workLimit('claims', file.claims, spec.maxClaims, 'RCM_REMIT_MAX_CLAIMS', task);
}

/** Parts of an answer written whole (a claim check, a loop) handed to the reader at a time, as an explanation streams its own. */
const PART = 256 * 1024;

/** An answer held whole, written through the channel in parts at the reader's pace. */
export async function writeInParts(ch: JobChannel, answer: string): Promise<void> {
  for (let i = 0; i < answer.length; i += PART) await ch.chunk(answer.slice(i, i + PART));
}

/** Runs one explanation against `snapshot` through `ch`; throws the caller's mistakes (413, 422) before `ready`. */
export async function runExplanation(bytes: Uint8Array, spec: ExplainSpec, snapshot: () => Promise<SnapshotReader>, ch: JobChannel): Promise<void> {
  const file = readX12(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  checkLimits(file, spec);
  if (!(await ch.admit({ segments: file.segments, claims: file.claims }))) return;
  const snap = await snapshot();
  const trace = new Trace(snap, () => new Date(spec.at));
  const explanation = await explanationOf(snap, file, spec.asOf, trace, spec.where, { testKey: spec.testKey, redact: spec.redact });
  ch.ready();
  await explanation.write((text) => ch.chunk(text), { mode: spec.mode, format: spec.format === 'csv' ? 'worklist-csv' : spec.format });
}

/** An error as it crosses the thread boundary, and back. */
export interface WireError {
  code: ErrorCode | null;
  message: string;
  issues?: Issue[];
  headers?: Record<string, string>;
}

export const toWire = (e: unknown): WireError =>
  e instanceof DomainError ? { code: e.code, message: e.message, ...(e.issues ? { issues: e.issues } : {}), ...(e.headers ? { headers: e.headers } : {}) } : { code: null, message: String((e as Error)?.message ?? e).slice(0, 300) };

export const fromWire = (w: WireError): Error => (w.code === 'validation_error' && w.issues ? new ValidationError(w.issues) : w.code ? new DomainError(w.code, w.message, { issues: w.issues, headers: w.headers }) : new Error(w.message));

/** Main thread to worker. */
export type ToWorker =
  | { kind: 'start'; id: number; dataDir: string; snapshotId: string; bytes: Uint8Array; spec: ExplainSpec }
  | { kind: 'admitted'; id: number; go: boolean }
  | { kind: 'credit'; id: number }
  | { kind: 'abort'; id: number };

/** Worker to main thread. */
export type FromWorker =
  | { kind: 'counts'; id: number; segments: number; claims: number }
  | { kind: 'ready'; id: number }
  | { kind: 'chunk'; id: number; bytes: Uint8Array }
  | { kind: 'done'; id: number }
  | { kind: 'error'; id: number; error: WireError; started: boolean };

/** Parts a worker sends before it waits for the reader: two chunks in flight keep the socket fed. */
export const WINDOW = 2;

/**
 * The worker thread's loop: one explanation at a time (the pool gives a thread one job), against
 * the snapshot the request named, mounted once and kept until a request names another.
 */
export function serveExplanations(runners: JobRunners = { explain: runExplanation }): void {
  const port = parentPort;
  if (!port) throw new Error('serveExplanations runs in a worker thread');
  let mounted: { id: string; snap: Promise<MountedSnapshot> } | null = null;
  const mount = (dataDir: string, id: string): Promise<MountedSnapshot> => {
    if (mounted?.id === id) return mounted.snap;
    const old = mounted;
    const wh = new Warehouse(dataDir);
    mounted = { id, snap: wh.readManifest(id).then((m) => MountedSnapshot.open(wh, m, { connections: 1, threads: 1 })) };
    mounted.snap.catch(() => (mounted = null));
    if (old) void old.snap.then((s) => s.close(), () => undefined);
    return mounted.snap;
  };
  // The running job's hooks: answers from the main thread reach it through them.
  let job: { id: number; admit?: (go: boolean) => void; credit?: () => void; credits: number; aborted: boolean } | null = null;
  port.on('message', (m: ToWorker) => {
    if (m.kind !== 'start') {
      if (!job || job.id !== m.id) return;
      if (m.kind === 'admitted') job.admit?.(m.go);
      else if (m.kind === 'credit') {
        job.credits++;
        job.credit?.();
      } else {
        job.aborted = true;
        job.admit?.(false);
        job.credit?.();
      }
      return;
    }
    const j = (job = { id: m.id, credits: WINDOW, aborted: false } as NonNullable<typeof job>);
    let started = false;
    const ch: JobChannel = {
      admit: (counts) =>
        new Promise<boolean>((resolve) => {
          j.admit = resolve;
          port.postMessage({ kind: 'counts', id: j.id, ...counts } satisfies FromWorker);
        }),
      ready: () => {
        started = true;
        port.postMessage({ kind: 'ready', id: j.id } satisfies FromWorker);
      },
      chunk: async (text) => {
        while (j.credits === 0 && !j.aborted) await new Promise<void>((r) => (j.credit = r));
        if (j.aborted) throw new Error('the answer was cut: its reader is gone');
        j.credits--;
        const bytes = Buffer.from(text, 'utf8');
        // The bytes move to the main thread (transferred, not copied).
        const own = new Uint8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
        port.postMessage({ kind: 'chunk', id: j.id, bytes: own } satisfies FromWorker, [own.buffer]);
      },
    };
    const run = runners[m.spec.task ?? 'explain'];
    // A loop's 837s came as copies (structured clone): they are this thread's.
    (run ? run(m.bytes, m.spec, () => mount(m.dataDir, m.snapshotId), ch) : Promise.reject(new Error(`this thread runs no ${m.spec.task} job`))).then(
      () => {
        if (job === j) job = null;
        if (!j.aborted) port.postMessage({ kind: 'done', id: j.id } satisfies FromWorker);
      },
      (e: unknown) => {
        if (job === j) job = null;
        if (!j.aborted) port.postMessage({ kind: 'error', id: j.id, error: toWire(e), started } satisfies FromWorker);
      },
    );
  });
}
