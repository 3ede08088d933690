import type { z } from 'zod';
import { DomainError, type ErrorCode } from '../warehouse/errors.js';
import type { ErrorBodySchema, ValidationErrorSchema } from './schemas.js';

/**
 * The only place an error code becomes an HTTP status (medplum's `getStatus`). Exhaustive over
 * `ErrorCode`: a new code without a status does not compile. Codes that never reach HTTP (a
 * failed job's, the CLI's) still get the status they would mean.
 */
export const STATUS: Record<ErrorCode, number> = {
  not_found: 404,
  validation_error: 422,
  conflict: 409,
  not_ready: 503,
  internal_error: 500,
  invalid_host: 400,
  misdirected_request: 421,
  missing_api_key: 401,
  invalid_api_key: 401,
  invalid_admin_secret: 401,
  key_host_mismatch: 403,
  insufficient_scope: 403,
  live_key_required: 403,
  admin_secret_required: 403,
  rate_limited: 429,
  queue_full: 429,
  service_busy: 503,
  storage_full: 507,
  state_unavailable: 503,
  encrypted_pdf: 422,
  invalid_pdf: 422,
  too_many_pages: 422,
  payload_too_large: 413,
  headers_too_large: 431,
  request_timeout: 408,
  unsupported_media_type: 415,
  method_not_allowed: 405,
  session_key_mismatch: 403,
  playground_disabled: 403,
  playground_not_on_production: 403,
  agent_unavailable: 503,
  agent_error: 500,
  invalid_job_input: 422,
  no_code: 422,
  no_denial_code: 422,
  bad_denial_code: 422,
  ingest_error: 422,
  gate_refused: 409,
  usage: 400,
};

/** Maps an error to its HTTP status: a domain error by its code, anything else 500. */
export function statusOf(err: unknown): number {
  return err instanceof DomainError ? STATUS[err.code] : 500;
}

/** An error answer: `{detail, code}` (500s add `request_id`, a 404 may add `suggestions`), or a 422's issues. */
export type ErrorBody = z.output<typeof ErrorBodySchema> | z.output<typeof ValidationErrorSchema>;

/** The body for an error; unknown errors never show their message or stack. */
export function bodyOf(err: unknown, requestId: string): ErrorBody {
  if (!(err instanceof DomainError)) return { detail: 'internal server error', code: 'internal_error', request_id: requestId };
  const status = STATUS[err.code];
  // Every 422 answers the spec's validation body; an error raised without issues (a PDF that
  // cannot be read, a job input with no code) is one issue on the body, its code as the type.
  if (status === 422) return { detail: err.issues.length > 0 ? err.issues : [{ loc: ['body'], msg: err.message, type: err.code }] };
  return { detail: err.message, code: err.code, ...(err.extra as { suggestions?: unknown[] }), ...(status >= 500 ? { request_id: requestId } : {}) };
}

export const notReady = (why: string): DomainError => new DomainError('not_ready', why);

