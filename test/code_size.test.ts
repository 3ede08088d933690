import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind, type Node, type NodeArray, type SourceFile } from 'typescript/unstable/ast';
import { getLeadingCommentRanges } from 'typescript/unstable/ast/scanner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * The size check of the rule areas: a function whose body grows past 100 lines, or a file past
 * 500, is a procedure that should have become registered units (server/payment/rules/, the NCCI
 * claim edits, the denial rules table). Lines are counted as a reader meets them: blank lines and
 * lines holding only comments do not count. Files are parsed with the TypeScript compiler API.
 */

const ROOT = resolve(import.meta.dirname, '..');
const CHECKED = ['server/payment', 'server/remittances', 'server/ncci', 'server/denials', 'server/agents'];
const MAX_FUNCTION_LINES = 100;
const MAX_FILE_LINES = 500;

/** The `.ts` files under `dir` (recursively), tests excepted. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** Kinds of a function with a body of its own. */
const FUNCTION_KINDS = new Set([SyntaxKind.FunctionDeclaration, SyntaxKind.FunctionExpression, SyntaxKind.ArrowFunction, SyntaxKind.MethodDeclaration, SyntaxKind.Constructor, SyntaxKind.GetAccessor, SyntaxKind.SetAccessor]);

/** Every node of a file, arrays included (a comment inside an empty block sits in a node array's range). */
function walk(node: Node, visit: (n: Node | NodeArray<Node>) => void): void {
  visit(node);
  node.forEachChild(
    (child) => walk(child, visit),
    (children) => {
      visit(children);
      for (const child of children) walk(child, visit);
    },
  );
}

/** The name a report gives a function: its own, else the variable or property it is assigned to. */
function nameOf(fn: Node): string {
  const own = (fn as Node & { name?: { text?: string } }).name?.text;
  if (own) return own;
  const parent = fn.parent as Node & { name?: { text?: string } };
  if ((parent.kind === SyntaxKind.VariableDeclaration || parent.kind === SyntaxKind.PropertyAssignment) && parent.name?.text) return parent.name.text;
  return fn.kind === SyntaxKind.Constructor ? 'constructor' : '(anonymous)';
}

/**
 * The lines of a file that hold code (not blank, not only comments), and each function's count
 * of them from its body's first line to its last.
 */
function measure(sf: SourceFile): { file: number; functions: { name: string; line: number; lines: number }[] } {
  const text = sf.text;
  const inComment = new Uint8Array(text.length);
  const functions: Node[] = [];
  walk(sf, (n) => {
    // Every comment is trivia before some node or array, or after one: its leading comment ranges there.
    for (const at of [n.pos, n.end]) for (const c of getLeadingCommentRanges(text, at) ?? []) inComment.fill(1, c.pos, c.end);
    if ('kind' in n && FUNCTION_KINDS.has(n.kind) && (n as Node & { body?: Node }).body) functions.push(n);
  });
  const starts = sf.getLineStarts();
  const code = starts.map((start, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]! : text.length;
    for (let p = start; p < end; p++) if (!inComment[p] && !/\s/.test(text[p]!)) return 1;
    return 0;
  });
  const count = (from: number, to: number) => code.slice(from, to + 1).reduce<number>((s, c) => s + c, 0);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  return {
    file: count(0, starts.length - 1),
    functions: functions.map((fn) => {
      const body = (fn as Node & { body: Node }).body;
      return { name: nameOf(fn), line: lineOf(fn.getStart(sf)) + 1, lines: count(lineOf(body.getStart(sf)), lineOf(body.end)) };
    }),
  };
}

/** Parses `files` (absolute paths) with the compiler: a throwaway project holding only them. */
async function parse(files: string[]): Promise<Map<string, SourceFile>> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-size-'));
  const api = new API({ cwd: ROOT });
  try {
    const config = join(dir, 'tsconfig.json');
    await writeFile(config, JSON.stringify({ compilerOptions: { noResolve: true, noLib: true, types: [] }, files }));
    const project = api.updateSnapshot({ openProjects: [config] }).getProjects()[0]!;
    return new Map(files.map((f) => [f, project.program.getSourceFile(f)!]));
  } finally {
    api.close();
    await rm(dir, { recursive: true, force: true });
  }
}

let sizes: Map<string, ReturnType<typeof measure>>;
beforeAll(async () => {
  const files = (await Promise.all(CHECKED.map(sourceFiles))).flat();
  const parsed = await parse(files.map((f) => join(ROOT, f)));
  sizes = new Map(files.map((f) => [f, measure(parsed.get(join(ROOT, f))!)]));
}, 60_000);
afterAll(() => sizes.clear());

describe('the size of the rule areas (server/payment, ncci, denials; remittances and agents once reshaped)', () => {
  it('reads every source file of the checked areas', () => {
    expect([...sizes.keys()].filter((f) => f.startsWith('server/payment/rules/')).length).toBeGreaterThan(20);
    expect([...sizes.keys()].some((f) => f.startsWith('server/ncci/')) && [...sizes.keys()].some((f) => f.startsWith('server/denials/'))).toBe(true);
  });

  it(`has no function body over ${MAX_FUNCTION_LINES} lines of code`, () => {
    const over = [...sizes].flatMap(([f, s]) => s.functions.filter((fn) => fn.lines > MAX_FUNCTION_LINES).map((fn) => `${f}:${fn.line} ${fn.name}: ${fn.lines} lines`));
    expect(over).toEqual([]);
  });

  it(`has no file over ${MAX_FILE_LINES} lines of code`, () => {
    const over = [...sizes].filter(([, s]) => s.file > MAX_FILE_LINES).map(([f, s]) => `${f}: ${s.file} lines`);
    expect(over).toEqual([]);
  });

  it('counts code lines only: blank lines and comments do not count, a multi-line string does', async () => {
    const sample = [
      '/** A doc comment',
      ' * over two lines. */',
      'export function f(a: number): string {',
      '',
      '  // why',
      '  const s = `one',
      'two`; /* trailing */',
      '  /* a block',
      '     comment */',
      '  return s + a; // the end',
      '}',
      'const g = () => {',
      '  // nothing',
      '};',
    ].join('\n');
    const dir = await mkdtemp(join(tmpdir(), 'rcm-size-sample-'));
    try {
      const file = join(dir, 'sample.ts');
      await writeFile(file, sample);
      const m = measure((await parse([file])).get(file)!);
      expect(m.functions).toEqual([
        { name: 'f', line: 3, lines: 5 },
        { name: 'g', line: 12, lines: 2 },
      ]);
      expect(m.file).toBe(7);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
