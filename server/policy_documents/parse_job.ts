import { parentPort } from 'node:worker_threads';
import { extractPdf, PdfError } from './extract.js';
import { structurePolicy, type StructuredPolicy } from './structure.js';

export interface ParseRequest {
  id: number;
  bytes: Uint8Array;
  maxPages: number;
}

export type ParseReply = { id: number; ok: true; value: StructuredPolicy } | { id: number; ok: false; problem: PdfError['problem']; message: string };

/** Bytes to a structured policy, or why not: the whole parse, run in the worker (or inline). */
export async function parsePolicyBytes(bytes: Uint8Array, maxPages: number): Promise<StructuredPolicy> {
  return structurePolicy(await extractPdf(bytes, { maxPages }));
}

/** The worker's loop: one parse at a time, each answered with its id. */
export function serveParses(): void {
  const port = parentPort;
  if (!port) throw new Error('serveParses runs in a worker thread');
  port.on('message', (req: ParseRequest) => {
    parsePolicyBytes(req.bytes, req.maxPages).then(
      (value) => port.postMessage({ id: req.id, ok: true, value } satisfies ParseReply),
      (e: unknown) => {
        const err = e instanceof PdfError ? e : new PdfError('invalid_pdf', `the PDF could not be read: ${String((e as Error)?.message ?? e).slice(0, 200)}`);
        port.postMessage({ id: req.id, ok: false, problem: err.problem, message: err.message } satisfies ParseReply);
      },
    );
  });
}
