/** Loads pdfjs's engine with the parser's limits hooked in (see pdf_engine.mjs). */
export function loadLimitedEngine(): Promise<void>;
