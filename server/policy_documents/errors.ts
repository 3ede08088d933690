/**
 * The PDF errors, apart from the extractor so that importing them does not load pdfjs (about 2 s):
 * parsing runs in a worker thread, and only the worker needs the engine.
 */
export type PdfProblem = 'encrypted_pdf' | 'invalid_pdf' | 'too_many_pages';

/** Why a PDF cannot be read, with a message for the caller (never pdfjs's stack). */
export class PdfError extends Error {
  constructor(
    readonly problem: PdfProblem,
    message: string,
  ) {
    super(message);
    this.name = 'PdfError';
  }
}
