#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader (no build step to forget; see README "Design").
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Long-running commands get a V8 heap ceiling (RCM_HEAP_MB, default 1536): V8 sizes its garbage
// headroom against the ceiling, and Node's default (about a sixth of RAM) let a server that holds
// ~150 MB live grow to ~400 MB of heap under a stream of distinct requests (`npm run bench memory`).
const LONG_RUNNING = new Set(['serve', 'start', 'worker']);
const heapFlagGiven = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith('--max-old-space-size'));
if (LONG_RUNNING.has(process.argv[2] ?? '') && !heapFlagGiven) {
  const mb = /^\d+$/.test(process.env.RCM_HEAP_MB ?? '') ? Number(process.env.RCM_HEAP_MB) : 1536;
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
  const { register } = await import('tsx/esm/api');
  register();
  const { run } = await import('../cli/main.ts');
  process.exitCode = await run(process.argv);
}
