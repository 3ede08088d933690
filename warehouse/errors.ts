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

/** Base for errors that carry a stable machine code; one function maps codes to HTTP statuses. */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainError {
  constructor(
    message: string,
    /** Optional hints for the caller (e.g. "did you mean" payer slugs). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super('not_found', message);
  }
}

/** Request or input validation failed; carries every issue, not only the first. */
export class ValidationError extends DomainError {
  constructor(issues: Issue[], message = 'validation failed') {
    super('validation_error', message, issues);
  }
}

/** A write conflicts with existing state (a reused idempotency key with another body, ...). */
export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}
