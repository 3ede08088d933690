/**
 * One issue shape everywhere: a rejected source row, a bad request field and a bad setting
 * are all `{loc, msg, type, ctx?, input?}` (the spec's 422 item), so tools can treat them alike.
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
  constructor(message: string) {
    super('not_found', message);
  }
}

/** Request or input validation failed; carries every issue, not only the first. */
export class ValidationError extends DomainError {
  constructor(issues: Issue[], message = 'validation failed') {
    super('validation_error', message, issues);
  }
}

/**
 * A source file cannot be ingested. The message names file, line and field so a data engineer
 * can open the file at the right place; nothing is published when this is thrown.
 */
export class IngestError extends DomainError {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly field?: string,
  ) {
    super('ingest_error', IngestError.format(message, file, line, field));
  }

  static format(message: string, file?: string, line?: number, field?: string): string {
    const where = [file, line !== undefined ? `line ${line}` : undefined, field ? `field ${field}` : undefined]
      .filter(Boolean)
      .join(', ');
    return where ? `${where}: ${message}` : message;
  }
}
