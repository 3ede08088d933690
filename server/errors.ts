import { DomainError, NotFoundError, type Issue } from '../warehouse/errors.js';

/** HTTP error with a stable snake_case code: `{"detail": "...", "code": "..."}` on the wire. */
export class HttpError extends DomainError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }
}

const STATUS: Record<string, number> = {
  not_found: 404,
  validation_error: 422,
  ingest_error: 422,
  conflict: 409,
  not_ready: 503,
};

/** Maps a domain error code to its HTTP status (medplum's getStatus idea). */
export function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (err instanceof DomainError) return STATUS[err.code] ?? 500;
  return 500;
}

export interface ErrorBody {
  detail: string | Issue[];
  code?: string;
  request_id?: string;
  [extra: string]: unknown;
}

/** The body for an error; unknown errors never show their message or stack. */
export function bodyOf(err: unknown, requestId: string): ErrorBody {
  const status = statusOf(err);
  if (status === 422 && err instanceof DomainError && err.issues.length > 0) return { detail: err.issues };
  if (status >= 500 && !(err instanceof HttpError)) return { detail: 'internal server error', code: 'internal_error', request_id: requestId };
  const e = err as DomainError;
  const extra = err instanceof NotFoundError ? err.extra : {};
  return { detail: e.message, code: e.code, ...extra, ...(status >= 500 ? { request_id: requestId } : {}) };
}
