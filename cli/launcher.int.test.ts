import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../server/defaults.js';
import { freePort, useSeededDir, waitUntil } from '../testing/harness.js';

const ROOT = resolve(import.meta.dirname, '..');
const seeded = useSeededDir('rcm-launcher-');

/** Whether something answers /v1/health on the port (a refused connection is false). */
const answers = (port: number) =>
  new Promise<boolean>((res) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/health', timeout: 1000 }, (r) => {
      r.resume();
      res(r.statusCode === 200);
    });
    req.on('error', () => res(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });

describe('the bin/rcm.js launcher', () => {
  it('takes its re-executed server down with it when it is SIGKILLed (the server no longer runs on, orphaned)', async () => {
    const port = await freePort();
    const launcher = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'serve', '--port', String(port)], {
      env: { ...process.env, RCM_DATA_DIR: seeded(), RCM_LOG: 'silent', RCM_AGENT_RUNNER: '0' },
      stdio: 'ignore',
    });
    try {
      expect(await waitUntil(() => answers(port), 30_000)).toBe(true);
      launcher.kill('SIGKILL');
      // The child's IPC channel to the launcher closes: it exits, and the port stops answering.
      expect(await waitUntil(async () => !(await answers(port)), 15_000)).toBe(true);
    } finally {
      launcher.kill('SIGKILL');
    }
  });

  it('re-executes a long-running command with RCM_HEAP_MB as validated by the config, the default otherwise', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcm-launcher-heap-'));
    // Preloaded in the launcher and, through its execArgv, in the child, where it records the child's flags.
    const probe = join(dir, 'probe.mjs');
    await writeFile(probe, "import { appendFileSync } from 'node:fs';\nif (process.env.RCM_LAUNCHED === '1') appendFileSync(process.env.RCM_PROBE_LOG, JSON.stringify(process.execArgv) + '\\n');\n");
    const worker = (heap: string | undefined, n: number) =>
      new Promise<{ code: number; err: string; flags: string[] }>((res) => {
        const log = join(dir, `flags-${n}.jsonl`);
        const env: Record<string, string | undefined> = { ...process.env, RCM_DATA_DIR: join(dir, 'var'), RCM_LOG: 'silent', RCM_PROBE_LOG: log, NODE_OPTIONS: '', RCM_HEAP_MB: heap };
        if (heap === undefined) delete env.RCM_HEAP_MB;
        execFile(process.execPath, ['--import', probe, join(ROOT, 'bin/rcm.js'), 'worker', '--once'], { env }, async (e, _out, err) => {
          const flags = await readFile(log, 'utf8').then((t) => JSON.parse(t.trim().split('\n')[0]!) as string[], () => []);
          res({ code: e ? (e.code as number) : 0, err, flags: flags.filter((f) => f.startsWith('--max-old-space-size')) });
        });
      });
    try {
      expect(await worker(undefined, 1)).toEqual({ code: 0, err: '', flags: [`--max-old-space-size=${DEFAULTS.heapMb}`] });
      expect(await worker('300', 2)).toEqual({ code: 0, err: '', flags: ['--max-old-space-size=300'] });
      // Below the config's minimum: the launcher does not pass it on, and the child's config refuses it by name.
      const low = await worker('100', 3);
      expect(low.flags).toEqual([`--max-old-space-size=${DEFAULTS.heapMb}`]);
      expect(low.code).toBe(1);
      expect(low.err).toMatch(/env\.RCM_HEAP_MB: Too small: expected number to be >=256/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
