import { Worker } from 'node:worker_threads';
import { DomainError } from '../../warehouse/errors.js';
import { PdfError } from './errors.js';
import type { ParsedPolicy, ParseReply, ParseRequest } from './parse_job.js';

/** Turns PDF bytes into a structured policy (or a `PdfError`). */
export interface PolicyParser {
  parse(bytes: Uint8Array): Promise<ParsedPolicy>;
  close(): Promise<void>;
}

export interface ParserOptions {
  /** `RCM_POLICY_MAX_PAGES`: a PDF with more pages is refused (422 too_many_pages). */
  maxPages: number;
  /** `RCM_POLICY_PARSE_TIMEOUT_MS`: a parse running longer is stopped (its worker is replaced). */
  timeoutMs: number;
  /** Parses waiting behind the running one; more is 503 service_busy. */
  maxQueued: number;
  /** Heap ceiling of the parser thread (MB): a PDF that needs more fails alone, the server stays up. */
  memoryMb: number;
}

/** `RCM_POLICY_MAX_MB` default: 25 MB (payer policies run 0.5-5 MB; scanned ones more). */
export const DEFAULT_POLICY_MAX_BYTES = 25 * 1024 * 1024;

export const DEFAULT_PARSER: ParserOptions = { maxPages: 300, timeoutMs: 60_000, maxQueued: 8, memoryMb: 512 };

interface Pending {
  req: ParseRequest;
  resolve(v: ParsedPolicy): void;
  reject(e: unknown): void;
}

/**
 * Parses PDFs one at a time on a worker thread: a 50-page policy takes about a second of CPU,
 * which on the event loop would stall every other request for that long. The thread has its own
 * heap ceiling and a time limit, so a hostile or broken PDF costs one 422, not the server. The
 * thread starts on the first parse and is replaced after a timeout or a crash.
 */
export class WorkerPolicyParser implements PolicyParser {
  private worker: Worker | null = null;
  private readonly queue: Pending[] = [];
  private current: (Pending & { timer: NodeJS.Timeout }) | null = null;
  private nextId = 1;
  private closed = false;

  constructor(private readonly o: ParserOptions = DEFAULT_PARSER) {}

  parse(bytes: Uint8Array): Promise<ParsedPolicy> {
    if (this.closed) return Promise.reject(new DomainError('service_busy', 'the server is shutting down', { headers: { 'Retry-After': '5' } }));
    if (this.queue.length >= this.o.maxQueued) {
      return Promise.reject(new DomainError('service_busy', `${this.queue.length} PDFs are waiting to be parsed; retry shortly`, { headers: { 'Retry-After': '5' } }));
    }
    return new Promise<ParsedPolicy>((resolve, reject) => {
      this.queue.push({ req: { id: this.nextId++, bytes, maxPages: this.o.maxPages }, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new DomainError('service_busy', 'the server is shutting down', { headers: { 'Retry-After': '5' } }));
    if (this.current) {
      clearTimeout(this.current.timer);
      this.current.reject(new DomainError('service_busy', 'the server is shutting down', { headers: { 'Retry-After': '5' } }));
      this.current = null;
    }
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  private spawn(): Worker {
    const w = new Worker(new URL('./parse_worker.mjs', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: this.o.memoryMb } });
    w.unref();
    w.on('message', (reply: ParseReply) => {
      const c = this.current;
      if (!c || c.req.id !== reply.id) return;
      this.settle(() => (reply.ok ? c.resolve(reply.value) : c.reject(new PdfError(reply.problem, reply.message))));
    });
    const died = (why: string) => {
      if (this.worker !== w) return;
      this.worker = null;
      const c = this.current;
      if (c) this.settle(() => c.reject(new PdfError('invalid_pdf', why)));
    };
    w.on('error', (e) => died(/memory/i.test(String(e?.message)) ? 'the PDF needs more memory to parse than the parser is allowed' : 'the parser failed on this PDF'));
    w.on('exit', () => died('the parser stopped on this PDF'));
    return w;
  }

  private settle(fn: () => void): void {
    if (this.current) clearTimeout(this.current.timer);
    this.current = null;
    fn();
    this.pump();
  }

  private pump(): void {
    if (this.current || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.worker ??= this.spawn();
    const w = this.worker;
    const timer = setTimeout(() => {
      // The thread may be stuck in the PDF: replace it.
      this.worker = null;
      void w.terminate();
      const c = this.current;
      if (c) this.settle(() => c.reject(new PdfError('invalid_pdf', `parsing stopped after ${this.o.timeoutMs} ms (RCM_POLICY_PARSE_TIMEOUT_MS)`)));
    }, this.o.timeoutMs);
    timer.unref();
    this.current = { ...next, timer };
    w.postMessage(next.req);
  }
}
