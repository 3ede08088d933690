import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../scripts/new_dataset.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');

/**
 * What the scaffold and the suites that must accept it read: the floors below server/, the seeds,
 * goldens and fixtures, the registry-wide tests with their helpers, and the configs. The copy is a
 * temp dir (with node_modules linked), never the repository: other test files scan datasets/.
 */
const COPIED = ['datasets', 'lib', 'warehouse', 'ingest', 'seeds', 'scripts', 'test/golden', 'test/fixtures', 'testing', 'test/golden.test.ts', 'docs/datasets.md', 'package.json', 'tsconfig.json', 'vitest.config.ts', 'vitest.base.ts'];
const ID = 'scaffold_probe';
const CHILD_MS = 60_000;

/** This process's environment without the outer vitest's worker variables (a nested vitest would read them). */
const childEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));

interface TestOutcome {
  name: string;
  file: string;
  status: string;
  message: string;
}

/** Runs vitest in `dir` over `filters` and returns every test's outcome (the JSON reporter's). */
async function vitest(dir: string, filters: string[]): Promise<TestOutcome[]> {
  const out = join(dir, 'vitest-result.json');
  await run(process.execPath, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--no-cache', '--reporter=json', `--outputFile=${out}`, ...filters], { cwd: dir, env: childEnv(), timeout: CHILD_MS }).catch(
    () => undefined, // a failing run exits 1; the report says which tests failed
  );
  const report = JSON.parse(await readFile(out, 'utf8')) as {
    testResults: { name: string; assertionResults: { ancestorTitles: string[]; title: string; status: string; failureMessages: string[] }[] }[];
  };
  return report.testResults.flatMap((f) =>
    f.assertionResults.map((a) => ({ name: [...a.ancestorTitles, a.title].join(' > '), file: f.name.slice(dir.length + 1), status: a.status, message: a.failureMessages.join('\n') })),
  );
}

describe('npm run new:dataset (in a temp copy of the tree)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-new-dataset-'));
    for (const p of COPIED) await cp(join(ROOT, p), join(dir, p), { recursive: true, filter: (src) => !src.endsWith('-changed.jsonl') });
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('scaffolds a dataset that tsc, the registry and golden tests, its own test and the seed load all accept', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'new:dataset', '--', ID, '--version', '2026'], { cwd: dir, env: childEnv(), timeout: CHILD_MS });
    const files = [`datasets/${ID}/dataset.ts`, `datasets/${ID}/queries.ts`, `datasets/${ID}/README.md`, `datasets/${ID}/${ID}.test.ts`, `seeds/${ID}/${ID}_2026.csv`, `test/golden/${ID}.jsonl`, 'datasets/registry.ts', 'seeds/origins.json', 'docs/datasets.md'];
    expect(stdout.split('\n').filter((l) => l.startsWith('wrote '))).toEqual(files.map((f) => `wrote ${f}`));
    for (const f of files) expect(existsSync(join(dir, f)), f).toBe(true);
    expect(await readFile(join(dir, 'datasets/registry.ts'), 'utf8')).toMatch(/^import \{ scaffoldProbe \} from '\.\/scaffold_probe\/dataset\.js';$[\s\S]*^ {2}scaffoldProbe,\n\];$/m);
    // The golden is the real parser's output over the seed: the file with its detection, then three rows.
    expect((await readFile(join(dir, `test/golden/${ID}.jsonl`), 'utf8')).split('\n')).toEqual([
      `{"file":"seeds/${ID}/${ID}_2026.csv","detected":true,"version":{"label":"2026","effective_date":"2026-01-01"}}`,
      '{"line":2,"row":{"code":"A0001","value":12.5}}',
      '{"line":3,"row":{"code":"A0002","value":0}}',
      '{"line":4,"row":{"code":"B0003","value":7.25}}',
      '',
    ]);
    // Its seed is listed as illustrative, and the dataset table has its row saying so.
    expect(JSON.parse(await readFile(join(dir, 'seeds/origins.json'), 'utf8'))[ID]).toBe('illustrative');
    expect(await readFile(join(dir, 'docs/datasets.md'), 'utf8')).toContain(`| \`${ID}\` | fill in |`);
    expect(existsSync(join(ROOT, 'datasets', ID)), 'the real tree is not touched').toBe(false);

    // tsc over datasets/ (the new folder and the registry's DatasetId) and the two registry-wide tests;
    // the other dataset tests are left out, as some import server/, which is not copied.
    await writeFile(
      join(dir, 'tsconfig.scaffold.json'),
      JSON.stringify({ extends: './tsconfig.json', include: ['datasets', 'test/golden.test.ts'], exclude: ['datasets/**/*.test.ts'], files: ['datasets/registry.test.ts', `datasets/${ID}/${ID}.test.ts`] }),
    );
    const tsc = await run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.scaffold.json', '--noEmit'], { cwd: dir, timeout: CHILD_MS }).catch((e: { stdout: string }) => e);
    expect(tsc.stdout, 'tsc errors').toBe('');

    // The run's global setup loads every seed as `rcm seed` does, the new one included.
    const outcomes = await vitest(dir, ['datasets/registry.test.ts', 'test/golden.test.ts', `datasets/${ID}/`]);
    expect(outcomes.filter((o) => o.status !== 'passed').map((o) => `${o.name}: ${o.message}`)).toEqual([]);
    const passed = outcomes.map((o) => o.name);
    expect(passed).toContain(`golden ingest output per dataset (rows and rejects as JSONL) > ${ID}: parses its seed and fixture files into the reviewed rows and rejects`);
    expect(passed).toContain(`dataset registry > datasets/${ID}/ > has a README, a seed (or a README saying why not) and a golden file`);
    expect(passed).toContain(`dataset registry > ${ID} > declares each table once: columns derived from its row schema, key columns in it, no reserved column`);
    expect(outcomes.filter((o) => o.file === `datasets/${ID}/${ID}.test.ts`).length).toBe(4);
  }, 120_000);

  it('fails the registry test for a copied dataset folder that is not registered, naming the folder', async () => {
    // The review's experiment: wage_index copied as wage_index_ltc, id and test file renamed, with a
    // seed and a golden, and not added to datasets/registry.ts.
    const copy = join(dir, 'datasets/wage_index_ltc');
    await cp(join(dir, 'datasets/wage_index'), copy, { recursive: true });
    await rename(join(copy, 'wage_index.test.ts'), join(copy, 'wage_index_ltc.test.ts'));
    await writeFile(join(copy, 'dataset.ts'), (await readFile(join(copy, 'dataset.ts'), 'utf8')).replace("id: 'wage_index'", "id: 'wage_index_ltc'"));
    await cp(join(dir, 'seeds/wage_index'), join(dir, 'seeds/wage_index_ltc'), { recursive: true });
    await cp(join(dir, 'test/golden/wage_index.jsonl'), join(dir, 'test/golden/wage_index_ltc.jsonl'));

    const failed = (await vitest(dir, ['datasets/registry.test.ts'])).filter((o) => o.status !== 'passed');
    // The unregistered folder, and its seed folder that seeds/origins.json does not list.
    expect(failed.map((o) => o.name)).toEqual([
      'dataset registry > registers every dataset folder: each datasets/<id>/ not starting with _ is listed in datasets/registry.ts',
      'seed origins (seeds/origins.json) > lists every seed folder once, as real_excerpt, curated or illustrative, and docs/datasets.md says the same',
    ]);
    expect(failed[0]!.message).toContain("[ 'wage_index_ltc' ]");
    await rm(copy, { recursive: true });
  }, 120_000);

  it('refuses an id that is not snake_case, or that exists, with one line and exit code 2, writing nothing', async () => {
    const registry = await readFile(join(dir, 'datasets/registry.ts'), 'utf8');
    const folders = await readdir(join(dir, 'datasets'));
    const attempt = async (...argv: string[]) => {
      const err: string[] = [];
      const code = await main(argv, { stdout: () => {}, stderr: (t) => err.push(t) }, dir);
      return { code, err: err.join('') };
    };
    for (const [argv, msg] of [
      [['Widget-Fees'], "new:dataset: 'Widget-Fees' is not a snake_case id"],
      [['widget__fees'], "new:dataset: 'widget__fees' is not a snake_case id"],
      [['clfs'], "new:dataset: dataset 'clfs' already exists (datasets/clfs/, seeds/clfs/, test/golden/clfs.jsonl)"],
      [[], 'new:dataset: usage: npm run new:dataset -- <id> [--version <YYYY>]'],
      [['widget_fees', '--version', 'Q3'], "new:dataset: --version 'Q3' is not a year"],
    ] as const) {
      const { code, err } = await attempt(...argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(err.startsWith(msg), err).toBe(true);
      expect(err.split('\n')).toHaveLength(2); // one line and its newline
    }
    expect(await readFile(join(dir, 'datasets/registry.ts'), 'utf8')).toBe(registry);
    expect(await readdir(join(dir, 'datasets'))).toEqual(folders);
  });
});
