import { runClaimCheck } from './claims/job.js';
import { runExplanation, type JobRunners } from './remittances/job.js';

/**
 * What the X12 threads run (the remittance worker pool): an 835 explained, an 837 checked. Here,
 * above both areas, so neither imports the other's job; `x12_worker.mjs` serves these.
 */
export const X12_RUNNERS: JobRunners = { explain: runExplanation, check: runClaimCheck };

/** The thread script that serves `X12_RUNNERS`. */
export const X12_WORKER = new URL('./x12_worker.mjs', import.meta.url);
