/**
 * The one home of the service's defaults that more than one floor needs: `cli/config.ts` (the
 * environment's defaults), `server/server.ts` and `server/routes/index.ts` (what a caller that
 * passes nothing gets) and `bin/rcm.js` (the heap ceiling, read from the compiled copy of this
 * file). Plain data and one plain function, no imports: the launcher loads it before anything else.
 */
export const DEFAULTS = Object.freeze({
  /** `RCM_PLAYGROUND_KEYS_PER_HOUR`: playground keys per client IP per hour. */
  playgroundKeysPerHour: 20,
  /** How long an agent job's `Idempotency-Key` is remembered (24 h; not a setting). */
  idempotencyWindowMs: 24 * 60 * 60 * 1000,
  /** `RCM_JOBS_QUEUED_PER_TENANT`: agent jobs one tenant may have waiting. */
  jobsQueuedPerTenant: 100,
  /** `RCM_CACHE_MAX_MB`: the answer cache's bound. */
  cacheMaxMb: 64,
  /** `RCM_MIN_FREE_MB`: free space the data dir needs for readiness. */
  minFreeMb: 64,
  /** `RCM_HEAP_MB`: `--max-old-space-size` for `serve`, `start` and `worker`. */
  heapMb: 1536,
  /** `RCM_BODY_BUDGET_MB`: request-body bytes a process holds at once (a client address: a quarter). */
  bodyBudgetMb: 128,
  /** `RCM_BODY_TIMEOUT_MS`: time a request body has to arrive in full. */
  bodyTimeoutMs: 30_000,
  /** `RCM_WRITE_TIMEOUT_MS`: a streamed answer whose reader takes no byte this long is cut. */
  writeTimeoutMs: 30_000,
  /** `RCM_AUTH_FAILURES_PER_MIN`: failed authentications a client address makes a minute before they are 429. */
  authFailuresPerMin: 30,
});

/** `RCM_HEAP_MB`'s accepted range (the config and the launcher validate it alike: `heapMbOf`). */
export const HEAP_MB_RANGE = Object.freeze({ min: 256, max: 65536 });

/**
 * `RCM_HEAP_MB` as the config reads it (a number, an integer, within `HEAP_MB_RANGE`), or null
 * when unset or invalid: the launcher then uses the default and the config refuses the value.
 */
export function heapMbOf(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= HEAP_MB_RANGE.min && n <= HEAP_MB_RANGE.max ? n : null;
}

/** Bytes in a megabyte, as every `*_MB` setting counts them. */
export const MB = 1024 * 1024;
