// The CLI's compiled copy: `npm run build` (and `npm ci`, through `prepare`) transpiles the
// TypeScript of cli/ server/ ingest/ datasets/ warehouse/ file by file to dist/ (esbuild, the
// transformer tsx itself uses, so the JavaScript is what tsx would run; no bundling, no type
// check: `tsc --noEmit` does that) and copies their other files (JSON, pages, the worker .mjs).
// bin/rcm.js runs dist/ only while `freshDist` holds, else the sources through tsx.
//
// Staleness: the build records the newest change time (ctime) of every file and folder under the
// source folders, and their count. Any write, create, delete or rename there moves a ctime past
// it (a folder's ctime moves when an entry is added or removed; ctime cannot be set back, unlike
// mtime), so a checkout whose sources differ from the build's in any way runs through tsx.
// Plain JavaScript, node: modules only: bin/rcm.js imports it before anything else.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SOURCE_DIRS = ['cli', 'server', 'ingest', 'datasets', 'warehouse', 'lib'];
/** Also read by the build: esbuild's settings, and the Node version it compiles for (`engines`). */
const ALSO = ['tsconfig.json', 'package.json'];
/** In dist/, written last: its presence marks a complete build (cli/context.ts looks for it too). */
export const STAMP = '.build-stamp.json';
/** A source changed this recently is waited out before the scan, so a later edit cannot share its ctime (1 s file systems). */
const SETTLE_MS = 2000;

/** The newest ctime (ms) of the source folders, their files and the build's settings, and how many there are. */
export function sourceState(root) {
  let newest = 0;
  let entries = 0;
  const note = (p) => {
    const t = statSync(p).ctimeMs;
    if (t > newest) newest = t;
    entries++;
  };
  const visit = (dir) => {
    note(dir);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else note(p);
    }
  };
  for (const d of SOURCE_DIRS) visit(join(root, d));
  for (const f of ALSO) note(join(root, f));
  return { newest, entries };
}

/** The compiled copy's folder when it was built from exactly the sources there are now, else null. */
export function freshDist(root, out = join(root, 'dist')) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(out, STAMP), 'utf8'));
  } catch {
    return null;
  }
  let now;
  try {
    now = sourceState(root);
  } catch {
    return null;
  }
  return stamp.newest === now.newest && stamp.entries === now.entries ? out : null;
}

/** Every file under the source folders: the TypeScript to compile (tests excluded) and the rest to copy. */
function sourceFiles(root) {
  const ts = [];
  const other = [];
  const visit = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.name.endsWith('.test.ts') || /\.d\.m?ts$/.test(e.name)) continue;
      else (e.name.endsWith('.ts') ? ts : other).push(p);
    }
  };
  for (const d of SOURCE_DIRS) visit(join(root, d));
  return { ts, other };
}

/** esbuild as installed for tsx (a dependency, so present wherever the CLI can run). */
function esbuild() {
  const here = createRequire(import.meta.url);
  try {
    return here('esbuild');
  } catch {
    return createRequire(here.resolve('tsx'))('esbuild');
  }
}

/** Compiles `root`'s sources to `out` (default dist/), replacing it whole; returns what it did. */
export async function build(root, out = join(root, 'dist')) {
  let before = sourceState(root);
  while (Date.now() - before.newest < SETTLE_MS) {
    await new Promise((r) => setTimeout(r, SETTLE_MS - (Date.now() - before.newest) + 10));
    before = sourceState(root);
  }
  const { ts, other } = sourceFiles(root);
  const tmp = `${out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await esbuild().build({
    absWorkingDir: root,
    entryPoints: ts,
    outdir: tmp,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    // The oldest Node the project supports (package.json `engines`): below 20.10 esbuild would drop
    // the `with { type: 'json' }` of JSON imports, which Node requires.
    target: `node${/\d+(\.\d+){0,2}/.exec(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node)[0]}`,
    tsconfig: join(root, 'tsconfig.json'),
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
  });
  for (const f of other) {
    const to = join(tmp, relative(root, f));
    mkdirSync(dirname(to), { recursive: true });
    // A worker script loads its TypeScript through tsx (`./parse_job.ts`): here it loads the compiled file.
    if (f.endsWith('.mjs')) writeFileSync(to, readFileSync(f, 'utf8').replace(/(['"])(\.{1,2}\/[^'"\n]*?)\.ts\1/g, '$1$2.js$1'));
    else copyFileSync(f, to);
  }
  writeFileSync(join(tmp, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(join(tmp, STAMP), JSON.stringify({ ...before, built_at: new Date().toISOString() }) + '\n');
  rmSync(out, { recursive: true, force: true });
  renameSync(tmp, out);
  return { out, compiled: ts.length, copied: other.length };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const t0 = Date.now();
  const r = await build(root);
  console.log(`rcm build: ${r.compiled} modules compiled, ${r.copied} files copied to ${relative(process.cwd(), r.out) || '.'} in ${Date.now() - t0} ms`);
}
