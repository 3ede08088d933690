import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '../warehouse/errors.js';
import type { Manifest } from '../warehouse/manifest.js';
import { openStateStore, stateLocationOf } from '../warehouse/open_state.js';
import type { MountedSnapshot } from '../warehouse/snapshot.js';
import type { StateStore } from '../warehouse/tenant_state.js';
import { Warehouse } from '../warehouse/store.js';
import { loadConfig, stateOptionsOf, type Config } from './config.js';
import { printJson, type CliIO } from './io.js';

/** The checkout: this file's parent folder, or the one above it when running the compiled copy in dist/ (cli/build.mjs). */
const parent = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = existsSync(join(parent, '.build-stamp.json')) ? dirname(parent) : parent;
export const SEEDS_DIR = join(REPO_ROOT, 'seeds');

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
    printJson(this.io, v);
  }

  /** The served snapshot's manifest; a 404 saying what to run when nothing is published yet. */
  async currentManifest(): Promise<Manifest> {
    const manifest = await this.wh().current();
    if (!manifest) throw new NotFoundError('no snapshot is published yet: run `rcm seed` or `rcm ingest`');
    return manifest;
  }

  /** Runs `fn` over the served snapshot mounted read-only (DuckDB loaded only here, never for `--help`), closing it afterwards. */
  async withSnapshot<T>(fn: (snapshot: MountedSnapshot) => Promise<T>): Promise<T> {
    const manifest = await this.currentManifest();
    const { MountedSnapshot } = await import('../warehouse/snapshot.js');
    const snapshot = await MountedSnapshot.open(this.wh(), manifest, { connections: 1, threads: 1 });
    try {
      return await fn(snapshot);
    } finally {
      snapshot.close();
    }
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
