// An X12 thread of the remittance pool: TypeScript through tsx's loader, like bin/rcm.js (the build
// points the imports at the compiled files). One job at a time (an 835 explained, an 837 checked),
// streamed to the main thread.
import { register } from 'tsx/esm/api';

register();
const { serveExplanations } = await import('./remittances/job.ts');
const { X12_RUNNERS } = await import('./x12_jobs.ts');
serveExplanations(X12_RUNNERS);
