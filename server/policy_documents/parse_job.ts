import Database from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';
import { Fts5Terms, type TermCount } from '../../warehouse/policy_terms.js';
import { extractPdf } from './extract.js';
import { PdfError } from './errors.js';
import { DEFAULT_PDF_LIMITS, type PdfLimits } from './pdf_limits.js';
import { structurePolicy, type StructuredPolicy } from './structure.js';

/** A parsed policy with each chunk's index terms counted (the state store then only writes them). */
export type ParsedPolicy = StructuredPolicy & { terms: TermCount[][] };

export interface ParseRequest {
  id: number;
  bytes: Uint8Array;
  maxPages: number;
  limits: PdfLimits;
}

export type ParseReply =
  | { id: number; ok: true; value: ParsedPolicy }
  | { id: number; ok: false; problem: PdfError['problem']; message: string; bound?: string | undefined };

let fts5: Fts5Terms | null = null;

/**
 * Bytes to a structured policy with its chunks' terms, or why not: the whole parse, run in the
 * worker (or inline in tests), so tokenising 300 chunks does not hold the server's event loop.
 */
export async function parsePolicyBytes(bytes: Uint8Array, maxPages: number, limits: PdfLimits = DEFAULT_PDF_LIMITS): Promise<ParsedPolicy> {
  const s = structurePolicy(await extractPdf(bytes, { maxPages, limits }));
  fts5 ??= new Fts5Terms(new Database(':memory:'));
  const counter = fts5;
  return { ...s, terms: s.chunks.map((c) => counter.count(c.section_path.join(' / '), c.text)) };
}

/** The worker's loop: one parse at a time, each answered with its id. */
export function serveParses(): void {
  const port = parentPort;
  if (!port) throw new Error('serveParses runs in a worker thread');
  port.on('message', (req: ParseRequest) => {
    parsePolicyBytes(req.bytes, req.maxPages, req.limits).then(
      (value) => port.postMessage({ id: req.id, ok: true, value } satisfies ParseReply),
      (e: unknown) => {
        const err = e instanceof PdfError ? e : new PdfError('invalid_pdf', `the PDF could not be read: ${String((e as Error)?.message ?? e).slice(0, 200)}`);
        port.postMessage({ id: req.id, ok: false, problem: err.problem, message: err.message, bound: err.bound } satisfies ParseReply);
      },
    );
  });
}
