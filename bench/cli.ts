import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freshDist } from '../cli/build.mjs';
import { median, ratio } from './lib.js';

const ROOT = resolve(import.meta.dirname, '..');
/** Runs of each command, alternated so a load swing on a shared machine hits every row alike. */
const RUNS = 9;

/**
 * CLI start-up: wall time of a whole process, `node -e 0` (the floor any Node program pays)
 * against `rcm --help` and two real commands through bin/rcm.js, and `rcm --help` through tsx
 * (what the launcher runs while dist/ is stale). Target: `rcm --help` within 5x `node -e 0`.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-cli-'));
  const bin = join(ROOT, 'bin/rcm.js');
  const viaTsx = `const { register } = await import('tsx/esm/api'); register(); const { run } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'cli/main.ts')).href)}); process.exitCode = await run(['node', 'rcm', '--help']);`;
  const cases: { name: string; args: string[] }[] = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'rcm --help', args: [bin, '--help'] },
    { name: 'rcm datasets --help', args: [bin, 'datasets', '--help'] },
    { name: 'rcm datasets', args: [bin, 'datasets'] },
    { name: 'rcm snapshots list (empty data dir)', args: [bin, 'snapshots', 'list'] },
    { name: 'rcm --help through tsx (dist/ stale)', args: ['--input-type=module', '-e', viaTsx] },
  ];
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const distBefore = freshDist(ROOT) !== null;
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const c of cases) {
        const t = performance.now();
        const r = spawnSync(process.execPath, c.args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RCM_DATA_DIR: join(dir, 'var'), NODE_OPTIONS: '' } });
        if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr}`);
        times.get(c.name)!.push(performance.now() - t);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const floor = median(times.get('node -e 0')!);
  const distAfter = freshDist(ROOT) !== null;
  const from = distBefore !== distAfter ? 'dist/ or tsx: the sources changed during the run' : distAfter ? 'dist/ (compiled)' : 'tsx: dist/ is stale or missing (npm run build)';
  return cases.map((c) => {
    const ms = median(times.get(c.name)!);
    return {
      command: c.name,
      'median ms': Math.round(ms),
      'min-max ms': `${Math.round(Math.min(...times.get(c.name)!))}-${Math.round(Math.max(...times.get(c.name)!))}`,
      'vs node -e 0': c.name === 'node -e 0' ? '1.00' : ratio(ms, floor),
      runs: RUNS,
      'bin/rcm.js ran': c.args[0] === bin ? from : '',
    };
  });
}
