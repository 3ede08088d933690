import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repo root (tests read seeds from here and real files from `../shared/data`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Whether this run is CI (`CI=true`, as `.ci/run` exports): nothing may skip or be rewritten. */
export function isCI(): boolean {
  return process.env.CI === 'true' || process.env.CI === '1';
}

/**
 * Where the real publisher files live: `RCM_SHARED_DATA` or `../shared/data` beside the repo.
 * The one resolver for conformance suites and benches alike.
 */
export function sharedDataDir(): string {
  return process.env.RCM_SHARED_DATA ? resolve(process.env.RCM_SHARED_DATA) : resolve(REPO_ROOT, '../shared/data');
}

/**
 * Whether every real file a conformance suite reads (paths relative to `sharedDataDir()`) is
 * there, for `describe.skipIf(!present)`. Without them a developer's run skips the suite with a
 * warning; under CI it throws naming the missing files, so a moved or renamed publisher file fails
 * the build instead of silently skipping its checks.
 */
export function requireShared(...relativePaths: string[]): boolean {
  const dir = sharedDataDir();
  const missing = relativePaths.filter((p) => !existsSync(join(dir, p)));
  if (missing.length === 0) return true;
  const what = `${missing.length} of ${relativePaths.length} real files missing under ${dir}: ${missing.join(', ')}`;
  if (isCI()) throw new Error(`conformance under CI=true cannot skip: ${what}`);
  console.warn(`skipping conformance suite: ${what} (set RCM_SHARED_DATA)`);
  return false;
}
