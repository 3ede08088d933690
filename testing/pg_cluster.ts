import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster on loopback for the PostgreSQL suite: `initdb` into a directory
 * of the caller's, trust authentication, a free port, started with `pg_ctl`. initdb refuses root,
 * so as root every command runs as the package's `postgres` user (`runuser`), in a directory that
 * user owns. Used by `.ci/run` (`npx tsx testing/pg_cluster.ts start <dir>` prints the URL,
 * `stop <dir>` stops it) and by any test that wants its own cluster.
 */

/** The newest installed PostgreSQL's bin directory (Debian: /usr/lib/postgresql/<v>/bin). */
export function pgBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  return join(root, versions[0]!, 'bin');
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program, as the postgres user when this process is root. */
function pg(program: string, args: string[]): void {
  const cmd = asRoot ? 'runuser' : join(pgBin(), program);
  const argv = asRoot ? ['-u', 'postgres', '--', join(pgBin(), program), ...args] : args;
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${program} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/** A TCP port free on loopback now (for a cluster, or a server process a test starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Creates and starts a cluster under `dir`; returns its URL (database `postgres`, user `postgres`). */
export async function startCluster(dir: string): Promise<string> {
  const data = join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  if (asRoot) {
    // The postgres user must reach the directory: a temp parent made by root (mktemp -d, 0700) is opened for traversal.
    const parent = dirname(dir);
    chmodSync(parent, statSync(parent).mode | 0o011);
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  // fsync stays on: the durability tests mean it. The socket lives in the cluster's own directory.
  pg('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`, 'start']);
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

/** Stops the cluster under `dir` (fast shutdown). */
export function stopCluster(dir: string): void {
  pg('pg_ctl', ['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop']);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [cmd, dir] = process.argv.slice(2);
  if (!dir || (cmd !== 'start' && cmd !== 'stop')) {
    console.error('usage: pg_cluster.ts start|stop <dir>');
    process.exit(2);
  }
  if (cmd === 'start') console.log(await startCluster(dir));
  else stopCluster(dir);
}
