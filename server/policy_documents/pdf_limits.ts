import { PdfError } from './errors.js';
import { loadLimitedEngine } from './pdf_engine.mjs';

/**
 * Bounds on what one PDF may make the parser do: decoded bytes per stream and per document,
 * content-stream operators per page and per document, text items per document, and the parser
 * thread's ArrayBuffer memory (the Worker's `resourceLimits` bound its heap only; pdfjs decodes
 * into typed arrays, outside it). A 4 KB file whose FlateDecode stream inflates to 500 MB of
 * zeros, or a page of millions of text operators, is refused with the bound it passed.
 */
export interface PdfLimits {
  /** Bytes one stream may decode to (a content stream, a font file, an object stream). */
  maxStreamBytes: number;
  /** Bytes every stream of the document together may decode to. */
  maxDocumentBytes: number;
  /** Content-stream operators read for one page (the forms it draws included). */
  maxPageOperators: number;
  /** Content-stream operators read for the whole document. */
  maxDocumentOperators: number;
  /** Text items (runs of text) the whole document may hold. */
  maxTextItems: number;
  /** ArrayBuffer memory of the parsing thread (bytes): pdfjs's decoded streams and fonts live there, outside the heap limit. */
  maxArrayBufferBytes: number;
}

const MB = 1024 * 1024;

/**
 * Payer policies decode to a few MB (a 300-page one: 20-40 MB of content streams and fonts) and
 * a dense page draws some thousands of operators; the bounds leave an order of magnitude.
 */
export const DEFAULT_PDF_LIMITS: PdfLimits = {
  maxStreamBytes: 32 * MB,
  maxDocumentBytes: 256 * MB,
  maxPageOperators: 200_000,
  maxDocumentOperators: 4_000_000,
  maxTextItems: 1_000_000,
  maxArrayBufferBytes: 768 * MB,
};

/** Operators between two looks at the thread's memory (a look costs microseconds). */
const MEMORY_EVERY_OPS = 4096;

/**
 * One document's spending against its limits. pdfjs calls `decode` before it grows a decoded
 * stream's buffer and `operator` for every operator it reads; past a bound
 * it throws, and stays tripped: pdfjs swallows some errors (`stopAtErrors: false`), so every
 * later call throws again, and the extractor checks `tripped` after each of its pdfjs calls.
 * pdfjs calls it through the hooks `pdf_engine.mjs` puts into its engine (`loadLimitedEngine`).
 */
export class PdfBudget {
  tripped: PdfError | null = null;
  private decoded = 0;
  private pageOps = 0;
  private docOps = 0;
  private items = 0;

  constructor(
    readonly limits: PdfLimits,
    /** The thread's ArrayBuffer bytes now (injected: tests pass a fake). */
    private readonly arrayBuffers: () => number = () => process.memoryUsage().arrayBuffers,
  ) {}

  /** A stream grows its decoded buffer to `size` bytes (`more` of them new): checked before the allocation. */
  decode(size: number, more: number): void {
    this.throwIfTripped();
    if (size > this.limits.maxStreamBytes) this.trip(`a stream of the PDF decodes to more than ${mb(this.limits.maxStreamBytes)} (the per-stream bound)`);
    this.decoded += Math.max(0, more);
    if (this.decoded > this.limits.maxDocumentBytes) this.trip(`the PDF's streams decode to more than ${mb(this.limits.maxDocumentBytes)} (the per-document bound)`);
    this.checkMemory();
  }

  /** pdfjs read one content-stream operator. */
  operator(): void {
    this.throwIfTripped();
    this.pageOps++;
    this.docOps++;
    if (this.pageOps > this.limits.maxPageOperators) this.trip(`a page of the PDF draws more than ${this.limits.maxPageOperators.toLocaleString('en-US')} operators (the per-page bound)`);
    if (this.docOps > this.limits.maxDocumentOperators) this.trip(`the PDF draws more than ${this.limits.maxDocumentOperators.toLocaleString('en-US')} operators (the per-document bound)`);
    if (this.docOps % MEMORY_EVERY_OPS === 0) this.checkMemory();
  }

  /** A page starts: its operator count starts again. */
  page(): void {
    this.pageOps = 0;
    this.throwIfTripped();
  }

  /** A page gave `n` text items. */
  textItems(n: number): void {
    this.items += n;
    if (this.items > this.limits.maxTextItems) this.trip(`the PDF holds more than ${this.limits.maxTextItems.toLocaleString('en-US')} text items (the per-document bound)`);
    this.checkMemory();
  }

  /** Throws the bound the document passed, if it passed one. */
  throwIfTripped(): void {
    if (this.tripped) throw this.tripped;
  }

  /** How much the document spent (tests and the bench read it). */
  spent(): { decoded: number; operators: number; items: number } {
    return { decoded: this.decoded, operators: this.docOps, items: this.items };
  }

  private checkMemory(): void {
    const used = this.arrayBuffers();
    if (used > this.limits.maxArrayBufferBytes) this.trip(`parsing the PDF needs more than ${mb(this.limits.maxArrayBufferBytes)} of buffers (the parser's memory bound)`);
  }

  private trip(why: string): never {
    this.tripped ??= new PdfError('invalid_pdf', `the PDF is refused: ${why}`, why);
    throw this.tripped;
  }
}

const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

/** Where the hooked engine (`pdf_engine.mjs`) finds the budget of the document being parsed (one at a time per thread). */
const BUDGET = Symbol.for('rcm.pdfBudget');
const G = globalThis as unknown as { [BUDGET]?: PdfBudget | null };

let turn: Promise<unknown> = Promise.resolve();

/**
 * Runs `fn` with `budget` charged by the engine. The hooks know no document, so documents take
 * turns on a thread (the parser thread parses one at a time anyway; inline callers queue).
 */
export function withBudget<T>(budget: PdfBudget, fn: () => Promise<T>): Promise<T> {
  const run = async () => {
    await loadLimitedEngine();
    G[BUDGET] = budget;
    try {
      return await fn();
    } finally {
      G[BUDGET] = null;
    }
  };
  const out = turn.then(run, run);
  turn = out.catch(() => undefined);
  return out;
}
