import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, freshDist, SOURCE_DIRS, sourceState } from './build.mjs';

/**
 * What `rcm` loads to start: every module a run imports is recorded by a loader hook (`--import`),
 * and the tests name what must not be among them. No timing: `npm run bench cli` measures that.
 */
const ROOT = resolve(import.meta.dirname, '..');
/** Modules a command that does not serve, parse PDFs or read a snapshot has no use for. */
const HEAVY = ['node_modules/@duckdb/node-api/', 'node_modules/pdfjs-dist/', 'node_modules/@modelcontextprotocol/sdk/', 'node_modules/koa/', 'node_modules/zod/', 'node_modules/pg/', 'node_modules/better-sqlite3/'];
/** The HTTP server and what only it uses (server/defaults.ts, plain data, is no part of it). */
const SERVER = /\/server\/(?!defaults\.(ts|js)$)/;

let dir: string;
let dist: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-cli-start-'));
  const hooks = join(dir, 'hooks.mjs');
  await writeFile(hooks, "import { appendFileSync } from 'node:fs';\nlet log;\nexport function initialize(d) { log = d.log; }\nexport async function load(url, context, next) {\n  appendFileSync(log, url + '\\n');\n  return next(url, context);\n}\n");
  await writeFile(join(dir, 'record.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)}, import.meta.url, { data: { log: process.env.RCM_MODULE_LOG } });\n`);
  // The compiled CLI, built beside dist/ (not over it: other tests run bin/rcm.js meanwhile).
  dist = join(ROOT, `dist.test-${process.pid}`);
  await build(ROOT, dist);
}, 120_000);
afterAll(async () => {
  await rm(dist, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
});

let runs = 0;
/** Runs a script with the recording hook; returns its exit code, output and the module URLs it loaded. */
function traced(args: string[]): { code: number | null; out: string; err: string; loaded: string[] } {
  const log = join(dir, `modules-${++runs}.log`);
  const r = spawnSync(process.execPath, ['--import', join(dir, 'record.mjs'), ...args], {
    env: { ...process.env, RCM_MODULE_LOG: log, RCM_DATA_DIR: join(dir, `var-${runs}`), RCM_LOG: 'silent', NODE_DEBUG: '', NODE_OPTIONS: '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  let loaded: string[] = [];
  try {
    loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } catch {
    // nothing was loaded through the hook
  }
  return { code: r.status, out: r.stdout, err: r.stderr, loaded };
}

/** `rcm <argv>` through the launcher, which runs dist/ when it is fresh and the TypeScript otherwise. */
const viaBin = (...argv: string[]) => traced([join(ROOT, 'bin/rcm.js'), ...argv]);
/** `rcm <argv>` from the compiled copy this file built. */
const viaBuilt = (...argv: string[]) =>
  traced(['--input-type=module', '-e', 'const { run } = await import(process.argv[1]); process.exitCode = await run(["node", "rcm", ...process.argv.slice(2)]);', pathToFileURL(join(dist, 'cli/main.js')).href, ...argv]);

const heavyIn = (loaded: string[]) => loaded.filter((u) => HEAVY.some((h) => u.includes(h)));
const serverIn = (loaded: string[]) => loaded.filter((u) => SERVER.test(u) && !u.includes('/node_modules/'));

describe('rcm --help loads commander and the command declarations only', () => {
  const helps = [[], ['datasets'], ['ingest'], ['snapshots', 'list'], ['diff'], ['seed'], ['serve'], ['start'], ['worker'], ['keys', 'create'], ['tenants'], ['state', 'copy']];
  for (const [how, rcm] of [
    ['bin/rcm.js', viaBin],
    ['the built CLI', viaBuilt],
  ] as const) {
    for (const c of helps) {
      it(`${how}: rcm ${[...c, '--help'].join(' ')}`, () => {
        const r = rcm(...c, '--help');
        expect(r.code).toBe(0);
        expect(r.out).toContain('Usage: rcm');
        expect(r.loaded.some((u) => /\/cli\/main\.(ts|js)$/.test(u))).toBe(true);
        expect(heavyIn(r.loaded)).toEqual([]);
        expect(serverIn(r.loaded)).toEqual([]);
        expect(r.loaded.filter((u) => /\/(datasets|ingest)\//.test(u) && !u.includes('/node_modules/'))).toEqual([]);
      });
    }
  }
});

describe('each command loads what it uses', () => {
  it('rcm datasets loads no server, PDF engine, MCP SDK or state store', () => {
    const r = viaBuilt('datasets', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).map((d: { id: string }) => d.id)).toContain('mpfs_rvu');
    expect(serverIn(r.loaded)).toEqual([]);
    expect(heavyIn(r.loaded).filter((u) => !u.includes('@duckdb/') && !u.includes('/zod/'))).toEqual([]);
  });

  it('rcm snapshots list reads manifests without DuckDB or the server', () => {
    const r = viaBuilt('snapshots', 'list');
    expect(r.code).toBe(0);
    expect(r.out).toContain('no snapshots yet');
    expect(r.loaded.filter((u) => /@duckdb|pdfjs-dist|@modelcontextprotocol|\/koa\//.test(u))).toEqual([]);
    expect(r.loaded.filter((u) => /\/server\/(server|http|routes|mcp)/.test(u))).toEqual([]);
  });

  it('rcm keys list opens the state store, not the server', () => {
    const r = viaBuilt('tenants', 'list');
    expect(r.code).toBe(0);
    expect(r.loaded.some((u) => u.includes('node_modules/better-sqlite3/'))).toBe(true);
    expect(r.loaded.filter((u) => /@duckdb|pdfjs-dist|@modelcontextprotocol|\/koa\//.test(u))).toEqual([]);
    expect(r.loaded.filter((u) => /\/server\/(server|http|routes|mcp)/.test(u))).toEqual([]);
  });

  it('a bad setting is reported by name from the built CLI (the config and its schema load on use)', () => {
    const r = traced(['--input-type=module', '-e', `const { run } = await import(${JSON.stringify(pathToFileURL(join(dist, 'cli/main.js')).href)}); process.env.RCM_CACHE_MAX_MB = '0'; process.exitCode = await run(['node', 'rcm', 'snapshots', 'list']);`]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/env\.RCM_CACHE_MAX_MB: Too small/);
  });
});

describe('the compiled copy (cli/build.mjs)', () => {
  it('finds the seeds from dist/ and runs a command end to end', () => {
    const r = viaBuilt('seed', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).versions.map((v: { dataset: string }) => v.dataset)).toContain('gpci');
    expect(r.loaded.some((u) => u.startsWith(pathToFileURL(dist).href))).toBe(true);
    expect(r.loaded.filter((u) => /\.ts$/.test(u))).toEqual([]);
  });

  it('counts as stale after any change to the sources, and fresh once rebuilt', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rcm-build-'));
    try {
      for (const d of SOURCE_DIRS) await mkdir(join(root, d, 'sub'), { recursive: true });
      await writeFile(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext' } }));
      await writeFile(join(root, 'package.json'), JSON.stringify({ type: 'module', engines: { node: '>=20.16' } }));
      await writeFile(join(root, 'cli/main.ts'), "import { x } from './sub/x.js';\nexport const main = (): number => x;\n");
      await writeFile(join(root, 'cli/sub/x.ts'), 'export const x: number = 1;\n');
      await writeFile(join(root, 'server/page.html'), '<p>page</p>\n');
      const out = join(root, 'dist');
      expect(freshDist(root)).toBeNull();
      await build(root);
      expect(freshDist(root)).toBe(out);
      expect(readFileSync(join(out, 'server/page.html'), 'utf8')).toBe('<p>page</p>\n');
      const ran = spawnSync(process.execPath, ['--input-type=module', '-e', 'const { main } = await import(process.argv[1]); console.log(main());', pathToFileURL(join(out, 'cli/main.js')).href], { encoding: 'utf8' });
      expect(ran.stdout.trim()).toBe('1');
      // An edit (same size, same name) makes it stale.
      await writeFile(join(root, 'cli/sub/x.ts'), 'export const x: number = 2;\n');
      expect(freshDist(root)).toBeNull();
      await build(root);
      expect(freshDist(root)).toBe(out);
      // A file added or removed anywhere under the source folders changes the count and a folder's ctime.
      const before = sourceState(root);
      await writeFile(join(root, 'datasets/sub/new.ts'), 'export {};\n');
      expect(sourceState(root)).not.toEqual(before);
      expect(freshDist(root)).toBeNull();
      await rm(join(root, 'datasets/sub/new.ts'));
      expect(sourceState(root).entries).toBe(before.entries);
      expect(freshDist(root)).toBeNull();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
