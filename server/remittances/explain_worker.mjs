// A remittance thread: TypeScript through tsx's loader, like bin/rcm.js (the build points the
// import at the compiled file). One explanation at a time, streamed to the main thread.
import { register } from 'tsx/esm/api';

register();
const { serveExplanations } = await import('./job.ts');
serveExplanations();
