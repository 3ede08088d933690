/** Structured JSON logs, one object per line; injected so tests stay quiet. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(write: (line: string) => void): Logger {
  const log = (level: string) => (msg: string, fields: Record<string, unknown> = {}) =>
    write(JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }) + '\n');
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
