// The policy PDF parser's worker thread: TypeScript through tsx's loader, like bin/rcm.js.
// pdfjs (plain JavaScript) and its engine with the limits hooked in are loaded first: after
// register() the loader would transform their 3 MB again in every parser thread (about 400 MB
// of memory and 1 s each); loaded here, the TypeScript's imports of them find them loaded.
import { register } from 'tsx/esm/api';
import { loadLimitedEngine } from './pdf_engine.mjs';

await import('pdfjs-dist/legacy/build/pdf.mjs');
await loadLimitedEngine();
register();
const { serveParses } = await import('./parse_job.ts');
serveParses();
