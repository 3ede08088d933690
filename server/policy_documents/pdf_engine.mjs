// pdfjs-dist's engine with the parser's limits hooked in (pdf_limits.ts holds the limits and the
// budget the hooks charge). Plain JavaScript, so the parser thread loads it before tsx's loader
// (parse_worker.mjs): through the loader, pdfjs's 3 MB cost each thread about 400 MB and 1 s.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The places in pdfjs-dist 5.4's engine where the budget (`globalThis[Symbol.for('rcm.pdfBudget')]`)
 * is charged: every decoding stream (Flate, LZW, ASCII85, predictors, decryption, a page's
 * concatenated contents) grows its buffer in `DecodeStream.ensureBuffer`, and every
 * content-stream operator (a page's, a form's, a Type 3 glyph's) comes out of
 * `EvaluatorPreprocessor.read`. Each anchor must occur exactly once.
 */
const HOOKS = [
  { at: '    const buffer2 = new Uint8Array(size);\n', insert: '    globalThis[Symbol.for("rcm.pdfBudget")]?.decode(size, size - buffer.byteLength);\n' },
  { at: '        const opSpec = EvaluatorPreprocessor.opMap[cmd];\n', insert: '        globalThis[Symbol.for("rcm.pdfBudget")]?.operator();\n' },
];

let loaded = null;

/**
 * Loads the engine pdfjs's API runs in Node's "fake worker" (on this thread) with the hooks, and
 * offers it as `globalThis.pdfjsWorker`, which pdfjs takes before its own: call before the first
 * document. pdfjs has no decode or operator limits and exports none of its classes, so the hooks
 * go into its source text; an upgrade that moves an anchor fails every parse (closed, never
 * unbounded) and the limits tests.
 */
export function loadLimitedEngine() {
  loaded ??= (async () => {
    const file = createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.worker.mjs');
    let src = readFileSync(file, 'utf8');
    for (const h of HOOKS) {
      const at = src.indexOf(h.at);
      if (at < 0 || src.indexOf(h.at, at + 1) >= 0) throw new Error(`pdfjs-dist's engine changed: the PDF limits cannot be installed (anchor ${JSON.stringify(h.at.trim())})`);
      src = src.slice(0, at) + h.insert + src.slice(at);
    }
    // Its source map is named relative to its file, which a data: URL has not (with source maps on, the import would fail).
    src = src.replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '\n');
    globalThis.pdfjsWorker = await import(`data:text/javascript;base64,${Buffer.from(src).toString('base64')}`);
  })();
  return loaded;
}
