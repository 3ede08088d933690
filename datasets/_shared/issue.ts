import { DomainError } from '../../warehouse/errors.js';

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
