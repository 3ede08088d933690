/**
 * One issue shape everywhere: a rejected source row, a bad request field and a bad setting
 * are all `{loc, msg, type, ctx?, input?}` (the spec's 422 item), so tools can treat them alike.
 * These errors live in the lowest layer (the warehouse) so every other layer can use them
 * without importing upwards.
 */
export interface Issue {
  loc: (string | number)[];
  msg: string;
  type: string;
  ctx?: Record<string, unknown>;
  input?: unknown;
}

/**
 * Every stable error code the service raises: the `code` of an error body, a failed job's
 * `error.code`, and the CLI's one-line error. Closed on purpose: `server/errors.ts` maps each one
 * to an HTTP status in an exhaustive table, so a new code without a status does not compile.
 */
export type ErrorCode =
  // data and requests
  | 'not_found'
  | 'validation_error'
  | 'conflict'
  | 'not_ready'
  | 'internal_error'
  // the pipeline: hosts, keys, limits, bodies
  | 'invalid_host'
  | 'misdirected_request'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'invalid_admin_secret'
  | 'key_host_mismatch'
  | 'insufficient_scope'
  | 'live_key_required'
  | 'admin_secret_required'
  | 'rate_limited'
  | 'queue_full'
  | 'service_busy'
  | 'storage_full'
  | 'state_unavailable'
  | 'payload_too_large'
  | 'headers_too_large'
  | 'request_timeout'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  // MCP sessions: a session is bound to the key that opened it
  | 'session_key_mismatch'
  // the playground
  | 'playground_disabled'
  | 'playground_not_on_production'
  // agent jobs (a failed job's `error.code`)
  | 'agent_unavailable'
  | 'agent_error'
  | 'invalid_job_input'
  | 'no_code'
  | 'no_denial_code'
  | 'bad_denial_code'
  // customer policy documents (a PDF the parser cannot take)
  | 'encrypted_pdf'
  | 'invalid_pdf'
  | 'too_many_pages'
  // ingest and the CLI
  | 'ingest_error'
  | 'gate_refused'
  | 'usage';

export interface DomainErrorOptions {
  /** Every issue of a validation failure (422 body). */
  issues?: Issue[];
  /** Response headers the error carries (`Retry-After` of a 429). */
  headers?: Record<string, string>;
  /** Extra fields of the error body (a not-found's "did you mean" slugs). */
  extra?: Record<string, unknown>;
}

/** An error with a stable machine code; `server/errors.ts` is the one place codes become statuses. */
export class DomainError extends Error {
  readonly issues: Issue[];
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    opts: DomainErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.issues = opts.issues ?? [];
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
  }
}

export class NotFoundError extends DomainError {
  /** `extra`: optional hints for the caller (e.g. "did you mean" payer slugs). */
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super('not_found', message, { extra });
  }
}

/** Request or input validation failed; carries every issue, not only the first. */
export class ValidationError extends DomainError {
  constructor(issues: Issue[], message = 'validation failed') {
    super('validation_error', message, { issues });
  }
}

/** A write conflicts with existing state (a reused idempotency key with another body, ...). */
export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** A CLI call the user got wrong (an unknown dataset or scope): one line, exit code 2. */
export class UsageError extends DomainError {
  constructor(message: string) {
    super('usage', message);
  }
}
