import { InvalidArgumentError } from 'commander';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStateStore, stateLocationOf } from '../warehouse/open_state.js';
import type { StateStore } from '../warehouse/tenant_state.js';
import { Warehouse } from '../warehouse/store.js';
import { loadConfig, stateOptionsOf, type Config } from './config.js';

export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
  /** Progress is drawn only on a terminal. */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** Resolves when a long-running command (serve, worker) should stop. */
  untilSignal?: () => Promise<void>;
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SEEDS_DIR = join(REPO_ROOT, 'seeds');

/** Exit codes: 0 ok, 1 error, 2 usage, 3 a gate (threshold or removal guard) refused. */
export const EXIT = { ok: 0, error: 1, usage: 2, threshold: 3 } as const;

/** Thrown by a command to end with an exit code after it printed its own output. */
export class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** What every command gets: the I/O, the settings (parsed once, on first use) and the data dir. */
export class CliContext {
  private config: Config | undefined;

  constructor(readonly io: CliIO) {}

  cfg(): Config {
    return (this.config ??= loadConfig(this.io.env));
  }

  wh(): Warehouse {
    return new Warehouse(resolve(this.cfg().RCM_DATA_DIR));
  }

  json(v: unknown): void {
    this.io.stdout(JSON.stringify(v, null, 2) + '\n');
  }

  /** Runs `fn` with the state store open (`RCM_STATE_URL`, else SQLite in the data dir), closing it afterwards. */
  async withState<T>(fn: (st: StateStore) => Promise<T>): Promise<T> {
    const st = await openStateStore(stateLocationOf(this.wh().dir, this.cfg().RCM_STATE_URL), undefined, stateOptionsOf(this.cfg()));
    try {
      return await fn(st);
    } finally {
      await st.close();
    }
  }
}

/** `5%`, `5` or `0.5` as a percentage number (5, 5, 0.5). */
export function percent(v: string): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('expected a percentage like 5% or 0.5');
  return Number(m[1]);
}

/** `5%` or `5%:payment_rate,rural_rate`: a share of rows, optionally only rows where one of the named value columns changed. */
export function changedGate(v: string): { pct: number; columns: string[] } {
  const [pct, cols] = v.split(':', 2) as [string, string | undefined];
  const columns = cols === undefined ? [] : cols.split(',').map((c) => c.trim());
  if (columns.some((c) => !/^[a-z][a-z0-9_.]*$/.test(c))) throw new InvalidArgumentError('expected N% or N%:column,column (snake_case value columns of the dataset)');
  return { pct: percent(pct), columns };
}

export function isoDate(v: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) throw new InvalidArgumentError('expected YYYY-MM-DD');
  return v;
}
