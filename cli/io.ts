import { InvalidArgumentError } from 'commander';
import { jsonSafe } from '../lib/safe_text.js';

/**
 * What `rcm --help` needs besides commander: the I/O seam, exit codes and the option parsers. Kept
 * free of the warehouse, the server and the config, so declaring the commands loads nothing else.
 */

/** Service version reported by /v1/meta and the OpenAPI document (spec revision 0.1.1). */
export const SERVICE_VERSION = '0.1.1';

export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
  /** Progress is drawn only on a terminal. */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** Resolves when a long-running command (serve, worker) should stop. */
  untilSignal?: () => Promise<void>;
}

/** A value as indented JSON on stdout (every command's `--json`), its DEL and C1 controls escaped too. */
export function printJson(io: CliIO, v: unknown): void {
  io.stdout(jsonSafe(JSON.stringify(v, null, 2)) + '\n');
}

/** Exit codes: 0 ok, 1 error, 2 usage, 3 a gate (threshold or removal guard) refused. */
export const EXIT = { ok: 0, error: 1, usage: 2, threshold: 3 } as const;

/** Thrown by a command to end with an exit code after it printed its own output. */
export class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** `5%`, `5` or `0.5` as a percentage number (5, 5, 0.5). */
export function percent(v: string): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('expected a percentage like 5% or 0.5');
  return Number(m[1]);
}

/** `5%` or `5%:non_rural_rate,rural_rate`: a share of rows, optionally only rows where one of the named value columns changed. */
export function changedGate(v: string): { pct: number; columns: string[] } {
  const [pct, cols] = v.split(':', 2) as [string, string | undefined];
  const columns = cols === undefined ? [] : cols.split(',').map((c) => c.trim());
  if (columns.some((c) => !/^[a-z][a-z0-9_.]*$/.test(c))) throw new InvalidArgumentError('expected N% or N%:column,column (snake_case value columns of the dataset)');
  return { pct: percent(pct), columns };
}

/** Days in each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A `YYYY-MM-DD` option that names a real calendar date (2028-02-29 yes; 2026-02-30 and
 * 2026-13-45 no) in the range the API's dates take (1900-01-01 to 2199-12-31, server/schemas.ts
 * `IsoDateSchema`): a usage error (exit 2) before the command runs, not a date rolled over into
 * the next month by date arithmetic. The Gregorian rule is written out here, not imported from
 * datasets/_shared/dates.ts: declaring the commands loads nothing of datasets/
 * (cli/start.int.test.ts).
 */
export function isoDate(v: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) throw new InvalidArgumentError('expected YYYY-MM-DD');
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = mo === 2 && leap ? 29 : MONTH_DAYS[mo - 1];
  if (days === undefined || d < 1 || d > days) throw new InvalidArgumentError(`${v} is not a calendar date (YYYY-MM-DD)`);
  if (v < '1900-01-01' || v > '2199-12-31') throw new InvalidArgumentError(`${v} is outside 1900-01-01 to 2199-12-31`);
  return v;
}

export function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number');
  return n;
}
