import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Structured JSON logs through pino: one object per line with `level`, `time` and `msg`.
 * The destination is injected (the CLI passes stdout, tests a buffer). Agent inputs can carry
 * PHI, so request logs name the route template and never the query string or body.
 */
export function createLogger(destination: DestinationStream | { write(s: string): void }, level: 'info' | 'silent' = 'info'): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, destination as DestinationStream);
}

export const silentLogger: Logger = pino({ level: 'silent' });
