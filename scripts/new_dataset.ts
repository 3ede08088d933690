/**
 * `npm run new:dataset -- <id> [--version <YYYY>]`: adds a working dataset in one command. It writes
 * a minimal CSV dataset from a template (declaration, queries, README, test), an illustrative seed
 * in that layout, the golden file made by running the real parser over the seed, and the registry
 * entry, so the new folder passes `tsc`, datasets/registry.test.ts, test/golden.test.ts, its own test
 * and `rcm seed` before any of it is edited. Then the template's layout is replaced by the
 * publisher's (datasets/README.md). An id that is not snake_case or that exists is refused with
 * one line and exit code 2; a failure half-way removes what was written.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Dataset } from '../datasets/types.js';
import { goldenItems, toJsonl } from '../testing/datasets.js';

const ROOT = resolve(import.meta.dirname, '..');

/** Where the command writes its lines (the process's streams, or a test's buffers). */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A refusal of the arguments: one line, exit code 2. */
class UsageError extends Error {}

const USAGE = 'usage: npm run new:dataset -- <id> [--version <YYYY>]';

/** The ids `STYLE.md` allows: lower case, digits, single underscores, starting with a letter. */
const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** Names the dataset's identifier may not take: JavaScript's reserved words, and what the templates import or declare (a local would hide it). */
const TAKEN = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package ' +
    'private protected public arguments eval undefined z dataRecords findHeader normHeader readRecords RowReader defineDataset quoteIdent ' +
    'versionLabel join describe expect it beforeAll afterAll sampleFile toSourceFile openTestSnapshot parseAll writeTempFile REPO_ROOT ' +
    'HEADER isHeader versionOf seed snap snapshot code value version s p r m l i rows rejects file ctx samples sample fields line records name'
  ).split(' '),
);

/** The identifiers a dataset id becomes: `widget_fees` -> `widgetFees` (the declaration), `WidgetFees` (its types). */
function namesOf(id: string): { camel: string; pascal: string } {
  const camel = id.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return { camel, pascal: camel[0]!.toUpperCase() + camel.slice(1) };
}

/**
 * The template: relative path -> text. A CSV with the header `CODE,VALUE` (a key and a value),
 * found by content; the version is the year in the file name (`<id>_<YYYY>.csv`), or the
 * `--version` of `rcm ingest` for a file named otherwise.
 */
function templateFiles(id: string, year: string): Record<string, string> {
  const { camel, pascal } = namesOf(id);
  const seedName = `${id}_${year}.csv`;
  return {
    [`datasets/${id}/dataset.ts`]: `import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One ${id} row: a code and its value (scaffolded by \`npm run new:dataset\`: declare the publisher's columns). */
export const ${pascal}RowSchema = z.object({
  code: z.string().describe('The key: what a lookup asks for.'),
  value: z.number().describe('The figure the file prints for the code.'),
});
/** One ${id} row: a code and its value. */
export type ${pascal}Row = z.infer<typeof ${pascal}RowSchema>;

/** The header the parser looks for by content, below any preamble. */
const HEADER = ['CODE', 'VALUE'];
const isHeader = (fields: string[]): boolean => HEADER.every((name, i) => normHeader(fields[i] ?? '') === name);

/** The year in a file name such as \`${seedName}\` (effective January 1); undefined for another name. */
function versionOf(sample: FileSample): VersionInfo | undefined {
  const m = /_(\\d{4})\\.csv$/i.exec(sample.name);
  return m ? { label: m[1]!, effective_date: \`\${m[1]}-01-01\` } : undefined;
}

/**
 * Scaffolded by \`npm run new:dataset\` (datasets/README.md): a CSV with the header \`CODE,VALUE\`,
 * one row per code. Replace the header, the columns and the version rule with the publisher's,
 * and say where the file comes from in README.md.
 */
export const ${camel} = defineDataset({
  id: '${id}',
  title: '${id} (scaffold: name the source)',
  publisher: 'fill in: the publisher (README.md)',
  formats: ['${id}_<YYYY>.csv (CSV, header CODE,VALUE), or another name with --version'],
  row: ${pascal}RowSchema,
  key: ['code'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isHeader(l.split(','))),
  version: (samples) => samples.map(versionOf).find((v) => v !== undefined),
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<${pascal}Row>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    await findHeader(records, file, isHeader, HEADER.join(','));
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const code = r.text('CODE', fields[0], { required: true, pattern: /^[A-Z0-9]{1,10}$/ });
      const value = r.number('VALUE', fields[1], { required: true });
      yield r.ok ? { line, row: { code, value: value! } } : { line, issues: r.issues };
    }
  },
});
`,
    [`datasets/${id}/queries.ts`]: `import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import { versionLabel } from '../_shared/versions.js';
import { ${camel}, type ${pascal}Row } from './dataset.js';

/** A stored ${id} row plus the version label it was loaded under. */
export type ${pascal}Entry = ${pascal}Row & { version: string };

/**
 * The rows of \`code\` in the latest loaded version (at most one: the code is the key); empty when
 * the code is not there or ${id} is not loaded. Table, version and memo key all come from
 * \`${camel}.id\`, so the query reads this dataset's own table.
 */
export function find${pascal}Rows(snapshot: SnapshotReader, code: string): Promise<${pascal}Entry[]> {
  const version = versionLabel(snapshot, ${camel}.id);
  if (!version) return Promise.resolve([]);
  return snapshot.memo(\`\${${camel}.id}:code:\${version}:\${code}\`, () =>
    snapshot.all<${pascal}Entry>(\`SELECT * FROM \${quoteIdent(${camel}.id)} WHERE version = $1 AND code = $2\`, [version, code]),
  );
}
`,
    [`datasets/${id}/README.md`]: `# ${id} (scaffold: name the source here)

**Publisher:** fill in: who publishes the file, the page it is downloaded from, how often it changes.
**Id / table:** \`${id}\`. **Key:** \`code\`. **Version:** the year in the file name
(\`${seedName}\` -> \`${year}\`, effective ${year}-01-01); a file named otherwise is loaded with
\`rcm ingest ${id} <file> --version <label>\`.

## Provenance

**To fill in before this dataset answers anything:** the real file's name, date and row count,
where it was downloaded, and every quirk found in it (preamble lines, encoding, blank rows,
printed forms of empty values), each with the file and date it was seen in. Until then this folder
is the template \`npm run new:dataset\` wrote.

## Layout

Header \`CODE,VALUE\`, found by content below any preamble; one row per code. \`CODE\`: 1-10 upper-case
letters or digits. \`VALUE\`: a number. A row breaking either is rejected with its line and column.

## Queries

\`find${pascal}Rows(snapshot, code)\`: the code's row in the latest loaded version, or an empty list.

## Seed

\`seeds/${id}/${seedName}\`: three rows whose values are **illustrative**: written by the scaffold,
not copied from any publisher's file. Replace it with a small excerpt of the real file (ugly rows
go in \`test/fixtures/${id}/\`), then review and rewrite the golden: \`UPDATE_GOLDEN=1 npx vitest run
test/golden.test.ts\`.
`,
    [`datasets/${id}/${id}.test.ts`]: `import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { ${camel} } from './dataset.js';
import { find${pascal}Rows } from './queries.js';

const seed = join(REPO_ROOT, 'seeds', ${camel}.id, \`\${${camel}.id}_${year}.csv\`);

describe('${id} parser (seed)', () => {
  it('detects the seed by its header and reads the version from the file name', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(${camel}.detect(s)).toBe(true);
    expect(${camel}.version([s])).toEqual({ label: '${year}', effective_date: '${year}-01-01' });
  });

  it('reads every seed row', async () => {
    const { rows, rejects } = await parseAll(${camel}, seed);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({ code: 'A0001', value: 12.5 });
  });

  it('rejects a row whose value is not a number, naming its line and column', async () => {
    const p = await writeTempFile(\`\${${camel}.id}_${year}.csv\`, 'CODE,VALUE\\nA0001,12.5\\nA0002,n/a\\n');
    const { rows, rejects } = await parseAll(${camel}, p);
    expect(rows).toEqual([{ code: 'A0001', value: 12.5 }]);
    expect(rejects).toEqual([{ line: 3, issues: [expect.objectContaining({ loc: ['row', 3, 'VALUE'], input: 'n/a' })] }]);
  });
});

describe('${id} queries', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: ${camel}, files: [seed] }]);
  });
  afterAll(() => snap?.close());

  it('finds a code in the loaded version, and nothing for an absent code', async () => {
    expect(await find${pascal}Rows(snap, 'A0001')).toEqual([{ code: 'A0001', value: 12.5, version: '${year}' }]);
    expect(await find${pascal}Rows(snap, 'Z9999')).toEqual([]);
  });
});
`,
    [`seeds/${id}/${seedName}`]: 'CODE,VALUE\nA0001,12.5\nA0002,0\nB0003,7.25\n',
  };
}

/** seeds/origins.json with the new seed listed as illustrative (the scaffold's rows are invented), ids in order. */
function withOrigin(origins: string, id: string): string {
  const o = JSON.parse(origins) as Record<string, string>;
  o[id] = 'illustrative';
  const keys = [...Object.keys(o).filter((k) => k.startsWith('$')), ...Object.keys(o).filter((k) => !k.startsWith('$')).sort()];
  return `{\n${keys.map((k) => `  ${JSON.stringify(k)}: ${JSON.stringify(o[k])}`).join(',\n')}\n}\n`;
}

/** docs/datasets.md with a row for the new dataset appended to its table (the seed marked illustrative). */
function withDocRow(doc: string, id: string): string {
  const lines = doc.split('\n');
  const last = lines.reduce((at, l, i) => (/^\| `[a-z0-9_]+`/.test(l) ? i : at), -1);
  if (last < 0) throw new Error('docs/datasets.md has no dataset table: add the row by hand');
  lines.splice(last + 1, 0, `| \`${id}\` | fill in | fill in (the publisher's layout) | code | none yet | illustrative: three scaffold rows |`);
  return lines.join('\n');
}

/** datasets/registry.ts with the dataset's import and list line added (after the last of each). */
function register(text: string, id: string, camel: string): string {
  const imports = [...text.matchAll(/^import \{ \w+ \} from '\.\/\w+\/dataset\.js';\n/gm)];
  const lastImport = imports.at(-1);
  const list = /^const REGISTERED = \[\n(?:  \w+,\n)*\];\n/m.exec(text);
  if (!lastImport || !list) throw new Error('datasets/registry.ts is not in the expected shape (dataset imports, then `const REGISTERED = [` one id per line `];`): add the import and list line by hand');
  const end = list.index + list[0].length - '];\n'.length;
  const at = lastImport.index + lastImport[0].length;
  const withLine = `${text.slice(0, end)}  ${camel},\n${text.slice(end)}`;
  return `${withLine.slice(0, at)}import { ${camel} } from './${id}/dataset.js';\n${withLine.slice(at)}`;
}

/** The id and `--version` of the command line; an unknown option is a usage error. */
function parseArguments(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: { version: { type: 'string' } } });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}; ${USAGE}`);
  }
}

/** Scaffolds dataset `argv[0]` under `root`; returns the exit code (0, 2 for a refused argument, 1 for a failure). */
export async function main(argv: string[], io: Io, root = ROOT): Promise<number> {
  // What a failure half-way removes: the files written and the two folders created, and the registry's old text.
  const written: string[] = [];
  const folders: string[] = [];
  const registryPath = join(root, 'datasets/registry.ts');
  const originsPath = join(root, 'seeds/origins.json');
  const docPath = join(root, 'docs/datasets.md');
  let registryBefore: string | undefined;
  let originsBefore: string | undefined;
  let docBefore: string | undefined;
  try {
    const parsed = parseArguments(argv);
    const [id, ...extra] = parsed.positionals;
    if (!id || extra.length) throw new UsageError(USAGE);
    if (!SNAKE_CASE.test(id)) throw new UsageError(`'${id}' is not a snake_case id (lower-case letters and digits in words joined by single underscores, starting with a letter, e.g. widget_fees)`);
    const year = parsed.values.version ?? String(new Date().getUTCFullYear());
    if (!/^\d{4}$/.test(year)) throw new UsageError(`--version '${year}' is not a year (YYYY): the template reads the version as the year in the file name`);
    const registry = await readFile(registryPath, 'utf8');
    const { camel } = namesOf(id);
    const existing = [`datasets/${id}/`, `seeds/${id}/`, `test/fixtures/${id}/`, `test/golden/${id}.jsonl`].filter((p) => existsSync(join(root, p)));
    if (existing.length || registry.includes(`'./${id}/dataset.js'`)) throw new UsageError(`dataset '${id}' already exists (${existing.join(', ') || 'datasets/registry.ts'})`);
    const registryCode = registry.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    if (TAKEN.has(camel) || new RegExp(`\\b${camel}\\b`).test(registryCode)) throw new UsageError(`'${id}' would be declared as \`${camel}\`, a name already taken; choose another id`);

    folders.push(join(root, 'datasets', id), join(root, 'seeds', id));
    for (const [rel, text] of Object.entries(templateFiles(id, year))) {
      const path = join(root, rel);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text, { flag: 'wx' });
      written.push(path);
    }
    registryBefore = registry;
    await writeFile(registryPath, register(registry, id, camel));
    const origins = await readFile(originsPath, 'utf8');
    originsBefore = origins;
    await writeFile(originsPath, withOrigin(origins, id));
    const doc = await readFile(docPath, 'utf8');
    docBefore = doc;
    await writeFile(docPath, withDocRow(doc, id));

    // The golden comes from the real parser over the seed, in test/golden.test.ts's format.
    const module = (await import(pathToFileURL(join(root, 'datasets', id, 'dataset.ts')).href)) as Record<string, Dataset<any>>;
    const dataset = module[camel]!;
    const items = await goldenItems(dataset, root);
    const rows = items.filter((i) => (i as { row?: unknown }).row).length;
    if (rows !== 3 || items.some((i) => (i as { issues?: unknown }).issues || (i as { detected?: boolean }).detected === false)) {
      throw new Error(`the template's parser did not read its own seed (${rows} of 3 rows): the template is broken`);
    }
    const golden = join(root, 'test/golden', `${id}.jsonl`);
    await writeFile(golden, toJsonl(items), { flag: 'wx' });
    written.push(golden);

    for (const p of [...written, registryPath, originsPath, docPath]) io.stdout(`wrote ${p.slice(root.length + 1)}\n`);
    io.stdout(
      `next: put the publisher's layout in datasets/${id}/dataset.ts and its provenance in datasets/${id}/README.md, a real excerpt in seeds/${id}/, ` +
        `then npx vitest run datasets/registry.test.ts test/golden.test.ts datasets/${id}/ (datasets/README.md)\n`,
    );
    return 0;
  } catch (e) {
    for (const p of written) await rm(p, { force: true });
    for (const d of folders) await rm(d, { recursive: true, force: true });
    if (registryBefore !== undefined) await writeFile(registryPath, registryBefore);
    if (originsBefore !== undefined) await writeFile(originsPath, originsBefore);
    if (docBefore !== undefined) await writeFile(docPath, docBefore);
    io.stderr(`new:dataset: ${(e as Error).message}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2), { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) });
}
