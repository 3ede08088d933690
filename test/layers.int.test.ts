import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

/** Runs the project's layering rules over a tree and returns the names of the rules it breaks. */
async function violations(dir: string): Promise<string[]> {
  const out = await run(process.execPath, [DEPCRUISE, 'bin', 'cli', 'server', 'ingest', 'datasets', 'warehouse', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], { cwd: dir }).catch(
    (e: { stdout: string }) => ({ stdout: e.stdout }),
  );
  const result = JSON.parse(out.stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('npm run lint:layers', () => {
  let dir: string;
  const files: Record<string, string> = {
    'warehouse/store.ts': 'export const store = 1;\n',
    'datasets/registry.ts': "import { store } from '../warehouse/store.js';\nexport const ids = [store];\n",
    'cli/main.ts': "import { ids } from '../datasets/registry.js';\nexport const main = ids;\n",
    'bin/rcm.ts': "import { main } from '../cli/main.js';\nexport default main;\n",
    'ingest/pipeline.ts': "import { ids } from '../datasets/registry.js';\nexport const pipeline = ids;\n",
    'server/route.ts': 'export const defineRoute = (x: unknown) => x;\n',
    'server/codes/service.ts': 'export const getCode = () => 1;\n',
    'server/payers/service.ts': "import { getCode } from '../codes/service.js';\nexport const payer = getCode;\n",
    'server/routes/codes.ts': "import { defineRoute } from '../route.js';\nimport { getCode } from '../codes/service.js';\nimport { payer } from '../payers/service.js';\nexport const codeRoutes = [defineRoute(getCode), payer];\n",
  };
  const write = async (rel: string, text: string) => {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), text);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-layers-'));
    await cp(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    await write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022' } }));
    for (const [rel, text] of Object.entries(files)) await write(rel, text);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('passes a tree whose imports all point down, routes above the areas', async () => {
    expect(await violations(dir)).toEqual([]);
  });

  it('fails on an upward import between floors, an area importing a route file, and a loop between areas', async () => {
    await write('warehouse/store.ts', "import { ids } from '../datasets/registry.js';\nexport const store = 1;\nexport const back = ids;\n");
    await write('datasets/registry.ts', "import { store } from '../warehouse/store.js';\nimport { main } from '../cli/main.js';\nexport const ids = [store, main];\n");
    await write('server/codes/service.ts', "import { codeRoutes } from '../routes/codes.js';\nexport const getCode = () => codeRoutes.length;\n");
    await write('server/codes/schemas.ts', "import { payer } from '../payers/service.js';\nexport const s = payer;\n");
    const found = await violations(dir);
    expect(found).toEqual(
      expect.arrayContaining([
        'warehouse-imports-upward: warehouse/store.ts -> datasets/registry.ts',
        'datasets-imports-upward: datasets/registry.ts -> cli/main.ts',
        'area-imports-routes: server/codes/service.ts -> server/routes/codes.ts',
        'area-cycle: server/codes -> server/payers',
        'area-cycle: server/payers -> server/codes',
      ]),
    );
  });
});
