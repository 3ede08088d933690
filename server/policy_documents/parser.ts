import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Lane, type LaneRefusal, type LaneRules } from '../../lib/lane.js';
import { DomainError } from '../../warehouse/errors.js';
import { PdfError } from './errors.js';
import type { ParsedPolicy, ParseReply, ParseRequest } from './parse_job.js';
import { DEFAULT_PDF_LIMITS, type PdfLimits } from './pdf_limits.js';

/** Who a parse is for: parses are shared fairly between tenants, and playground keys have a budget of their own. */
export interface ParseCaller {
  /** The tenant: each has its own queue, served in turn with the others. */
  tenant: string;
  /** A playground session key (minted by `POST /v1/playground/session`): the playground's budget, never a paying tenant's thread. */
  playground?: boolean;
}

/** Turns PDF bytes into a structured policy (or a `PdfError`). */
export interface PolicyParser {
  parse(bytes: Uint8Array, caller?: ParseCaller): Promise<ParsedPolicy>;
  close(): Promise<void>;
}

/** What anonymous playground keys may spend: one thread of their own, small files, one parse at a time each. */
export interface PlaygroundBudget {
  /** Largest PDF a playground key may send (bytes); larger is 413 payload_too_large. */
  maxBytes: number;
  /** Playground parses waiting for the playground's thread, all playground tenants together; more is 503 service_busy. */
  maxQueued: number;
}

export interface ParserOptions {
  /** `RCM_POLICY_MAX_PAGES`: a PDF with more pages is refused (422 too_many_pages). */
  maxPages: number;
  /** `RCM_POLICY_PARSE_TIMEOUT_MS`: a parse running longer is stopped (its worker is replaced). */
  timeoutMs: number;
  /** Parses one tenant may have waiting behind its running ones; more is 503 service_busy. */
  maxQueued: number;
  /** Parses waiting across all tenants (each holds its PDF in memory); more is 503 service_busy. */
  maxQueuedTotal: number;
  /** Heap ceiling of each parser thread (MB): a PDF that needs more fails alone, the server stays up. */
  memoryMb: number;
  /** `RCM_POLICY_PARSERS`: parser threads for tenants (the playground has one more of its own). */
  parsers: number;
  playground: PlaygroundBudget;
  /** Decoded bytes, operators, text items and buffer memory one PDF may use (`pdf_limits.ts`). */
  limits: PdfLimits;
}

/** `RCM_POLICY_MAX_MB` default: 25 MB (payer policies run 0.5-5 MB; scanned ones more). */
export const DEFAULT_POLICY_MAX_BYTES = 25 * 1024 * 1024;

/** `RCM_POLICY_PARSERS` default: one parser thread per core (`os.availableParallelism()`), at least 1. */
export const defaultParsers = (): number => Math.max(1, availableParallelism());

export const DEFAULT_PARSER: ParserOptions = {
  maxPages: 300,
  timeoutMs: 60_000,
  maxQueued: 4,
  maxQueuedTotal: 16,
  memoryMb: 512,
  parsers: defaultParsers(),
  playground: { maxBytes: 2 * 1024 * 1024, maxQueued: 4 },
  limits: DEFAULT_PDF_LIMITS,
};

const busy = (message: string) => new DomainError('service_busy', message, { headers: { 'Retry-After': '5' } });
const shuttingDown = () => busy('the server is shutting down');

export interface Job {
  req: ParseRequest;
  tenant: string;
  resolve(v: ParsedPolicy): void;
  reject(e: unknown): void;
}

/** One parser thread and the parse it runs. */
interface Slot {
  worker: Worker | null;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/** Why a parse is refused, in words. */
function refusalOf(r: LaneRefusal | null, label: string): DomainError | null {
  if (!r) return null;
  if (r.reason === 'in_flight') return busy(`${label} parse one PDF at a time; retry when the running one finishes`);
  if (r.reason === 'tenant_queue') return busy(`${r.waiting} of your PDFs are waiting to be parsed; retry when one finishes`);
  return busy(`${r.waiting} PDFs are waiting to be parsed; retry shortly`);
}

/** The parser's lane: tenants' parses and the threads that run them. */
type ParseLane = Lane<Job, Slot> & { label: string };
const lane = (size: number, rules: LaneRules, label: string): ParseLane => Object.assign(new Lane<Job, Slot>(size, rules, () => ({ worker: null, job: null, timer: null })), { label });

/**
 * Parses PDFs on worker threads: a 50-page policy takes about a second of CPU, which on the
 * event loop would stall every other request for that long. Tenants share `parsers` threads
 * fairly (their own queues, served in turn, none holding every thread); playground keys share one
 * more thread of their own, one parse at a time each and small files only, so an anonymous key
 * never waits in front of a paying tenant. Each thread has its own heap ceiling, the PDF limits
 * (`pdf_limits.ts`) and a time limit, so a hostile or broken PDF costs one 422, not the server.
 * A thread starts on its first parse and is replaced after a timeout, a crash or a passed bound.
 */
export class WorkerPolicyParser implements PolicyParser {
  private readonly tenants: ParseLane;
  private readonly playground: ParseLane;
  private nextId = 1;
  private closed = false;
  private readonly o: ParserOptions;
  /** Parser threads started so far, replacements included (tests read it). */
  started = 0;

  /** The tenants' parses on a thread now, by tenant and parse number (tests read it). */
  running(): { tenant: string; id: number }[] {
    return this.tenants.slots.flatMap((s) => (s.job ? [{ tenant: s.job.tenant, id: s.job.req.id }] : []));
  }

  constructor(options: ParserOptions = DEFAULT_PARSER) {
    // A caller that sets part of the playground's budget or of the limits keeps the defaults of the rest.
    const o = (this.o = { ...options, playground: { ...DEFAULT_PARSER.playground, ...options.playground }, limits: { ...DEFAULT_PDF_LIMITS, ...options.limits } });
    const n = Math.max(1, Math.floor(o.parsers));
    this.tenants = lane(n, { perTenantRunning: Math.max(1, n - 1), perTenantQueued: o.maxQueued, perTenantInFlight: Infinity, totalQueued: o.maxQueuedTotal }, 'tenants');
    this.playground = lane(1, { perTenantRunning: 1, perTenantQueued: 1, perTenantInFlight: 1, totalQueued: o.playground.maxQueued }, 'playground keys');
  }

  parse(bytes: Uint8Array, caller: ParseCaller = { tenant: '' }): Promise<ParsedPolicy> {
    if (this.closed) return Promise.reject(shuttingDown());
    const lane = caller.playground ? this.playground : this.tenants;
    if (caller.playground && bytes.length > this.o.playground.maxBytes) {
      const mb = (b: number) => `${Math.round((b / 1024 / 1024) * 10) / 10} MB`;
      return Promise.reject(new DomainError('payload_too_large', `a playground key parses PDFs of at most ${mb(this.o.playground.maxBytes)}; this one is ${mb(bytes.length)} (use a tenant's key for larger files)`));
    }
    const refused = refusalOf(lane.refusal(caller.tenant), lane.label);
    if (refused) return Promise.reject(refused);
    return new Promise<ParsedPolicy>((resolve, reject) => {
      lane.enqueue({ req: { id: this.nextId++, bytes, maxPages: this.o.maxPages, limits: this.o.limits }, tenant: caller.tenant, resolve, reject });
      this.pump(lane);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopping: Promise<number>[] = [];
    for (const lane of [this.tenants, this.playground]) {
      for (const job of lane.drain()) job.reject(shuttingDown());
      for (const s of lane.slots) {
        if (s.timer) clearTimeout(s.timer);
        const job = s.job;
        s.job = null;
        if (job) {
          lane.finished(job);
          job.reject(shuttingDown());
        }
        if (s.worker) stopping.push(s.worker.terminate());
        s.worker = null;
      }
    }
    await Promise.all(stopping);
  }

  private spawn(lane: ParseLane, slot: Slot): Worker {
    // Not the server's own flags (a loader such as tsx's): the worker's entry loads pdfjs first, then its own loader.
    const w = new Worker(new URL('./parse_worker.mjs', import.meta.url), { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: this.o.memoryMb } });
    w.unref();
    this.started++;
    w.on('message', (reply: ParseReply) => {
      const job = slot.job;
      if (slot.worker !== w || !job || job.req.id !== reply.id) return;
      // A PDF past a bound may have left the thread's memory spent: the next parse gets a fresh one.
      if (!reply.ok && reply.bound) this.retire(slot);
      this.settle(lane, slot, () => (reply.ok ? job.resolve(reply.value) : job.reject(new PdfError(reply.problem, reply.message, reply.bound))));
    });
    const died = (why: string) => {
      if (slot.worker !== w) return;
      slot.worker = null;
      const job = slot.job;
      if (job) this.settle(lane, slot, () => job.reject(new PdfError('invalid_pdf', why)));
    };
    w.on('error', (e) => died(/memory/i.test(String(e?.message)) ? 'the PDF needs more memory to parse than the parser is allowed' : 'the parser failed on this PDF'));
    w.on('exit', () => died('the parser stopped on this PDF'));
    return w;
  }

  /** Stops a slot's thread; the slot's next parse starts a new one. */
  private retire(slot: Slot): void {
    const w = slot.worker;
    slot.worker = null;
    if (w) void w.terminate();
  }

  private settle(lane: ParseLane, slot: Slot, fn: () => void): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const job = slot.job;
    slot.job = null;
    if (job) lane.finished(job);
    fn();
    this.pump(lane);
  }

  private pump(lane: ParseLane): void {
    if (this.closed) return;
    lane.fill(
      (slot) => !slot.job,
      (slot, job) => {
        const worker = (slot.worker ??= this.spawn(lane, slot));
        const timer = setTimeout(() => {
          // The thread may be stuck in the PDF: replace it.
          this.retire(slot);
          const j = slot.job;
          if (j) this.settle(lane, slot, () => j.reject(new PdfError('invalid_pdf', `parsing stopped after ${this.o.timeoutMs} ms (RCM_POLICY_PARSE_TIMEOUT_MS)`)));
        }, this.o.timeoutMs);
        timer.unref();
        slot.job = job;
        slot.timer = timer;
        worker.postMessage(job.req);
      },
    );
  }
}
