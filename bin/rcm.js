#!/usr/bin/env node
// Runs the CLI compiled to dist/ (`npm run build`, which `npm ci` runs as `prepare`) while that copy
// was built from exactly the sources in the checkout, else the TypeScript itself through tsx's loader:
// an edited source is never run stale (cli/build.mjs, `freshDist`: the check stats the ~450 files and
// folders of the source tree, about 10 ms). tsx's loader alone costs more than the rest of `rcm --help`.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshDist } from '../cli/build.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = freshDist(ROOT);
let tsx = false;
/** A module of the source tree by its path without extension: the compiled one, or the TypeScript through tsx. */
async function load(path) {
  if (dist) return import(pathToFileURL(join(dist, `${path}.js`)).href);
  if (!tsx) {
    (await import('tsx/esm/api')).register();
    tsx = true;
  }
  return import(pathToFileURL(join(ROOT, `${path}.ts`)).href);
}

// Long-running commands get a V8 heap ceiling (RCM_HEAP_MB; its default and range are in
// server/defaults.ts, which cli/config.ts validates by too): V8 sizes its garbage headroom against
// the ceiling, and Node's default (about a sixth of RAM) let a server that holds ~150 MB live grow
// to ~400 MB of heap under a stream of distinct requests (`npm run bench memory`).
const LONG_RUNNING = new Set(['serve', 'start', 'worker']);
const heapFlagGiven = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith('--max-old-space-size'));
if (LONG_RUNNING.has(process.argv[2] ?? '') && !heapFlagGiven) {
  // An invalid RCM_HEAP_MB runs with the default here, and the child's config refuses it by name.
  const { DEFAULTS, heapMbOf } = await load('server/defaults');
  const mb = heapMbOf(process.env.RCM_HEAP_MB) ?? DEFAULTS.heapMb;
  // An IPC channel ties the child to this launcher: if the launcher is killed (even SIGKILL, which
  // it cannot forward), the channel closes and the child exits instead of serving on, orphaned.
  const child = spawn(process.execPath, [`--max-old-space-size=${mb}`, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, RCM_LAUNCHED: '1' },
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15 }[signal] ?? 1) : 1);
  });
} else {
  // Started by the launcher above: exit with it (its IPC channel closes when it dies).
  if (process.env.RCM_LAUNCHED === '1' && process.channel) {
    process.on('disconnect', () => process.exit(129));
    process.channel.unref();
  }
  const { run } = await load('cli/main');
  process.exitCode = await run(process.argv);
}
