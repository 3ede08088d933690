import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, useSeededDir, waitUntil } from './helpers/harness.js';

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

describe('the bin/rcm.js launcher (issue 20, item 8)', () => {
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
});
