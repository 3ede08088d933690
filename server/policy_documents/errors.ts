/**
 * The PDF errors, apart from the extractor so that importing them does not load pdfjs (about 2 s):
 * parsing runs in a worker thread, and only the worker needs the engine.
 */
import { DomainError } from '../../warehouse/errors.js';

export type PdfProblem = 'encrypted_pdf' | 'invalid_pdf' | 'too_many_pages';

/**
 * Why a PDF cannot be read, with a message for the caller (never pdfjs's stack): a domain error
 * whose code is the problem, so the one error model answers it (422) wherever it is raised.
 */
export class PdfError extends DomainError {
  constructor(
    readonly problem: PdfProblem,
    message: string,
    /** The parser bound the PDF passed (`pdf_limits.ts`), when that is why: its thread is then replaced. */
    readonly bound?: string,
  ) {
    super(problem, message);
  }
}
