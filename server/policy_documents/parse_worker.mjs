// The policy PDF parser's worker thread: TypeScript through tsx's loader, like bin/rcm.js.
import { register } from 'tsx/esm/api';

register();
const { serveParses } = await import('./parse_job.ts');
serveParses();
