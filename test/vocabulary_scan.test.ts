import { parseSync } from '@swc/core';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODIFIERS } from '../lib/vocabulary/modifiers.js';
import { FACILITY_RATE_POS, HOSPITAL_OUTPATIENT_POS, HOSPITAL_POS } from '../lib/vocabulary/place_of_service.js';
import { US_STATES } from '../server/schemas.js';

/**
 * One billing vocabulary (`lib/vocabulary/`): a set of codes written anywhere else is a second
 * home for them, which drifts (the remittance links and the denial rules once disagreed on CO-167).
 * This scan parses every source file outside `lib/vocabulary/` and tests and fails on an array,
 * `Set` or object literal of three or more members that are all codes of one kind: modifiers
 * and places of service (`^[A-Z0-9]{2}$`, not a state code) or remark codes
 * (`M80`, `N130`, `MA01`). A publisher's file layout that happens to look like one is listed in
 * LAYOUTS with why it is not billing vocabulary.
 */

const ROOT = resolve(import.meta.dirname, '..');
const SCANNED = ['server', 'datasets', 'cli', 'warehouse', 'ingest', 'lib'];

const STATES: ReadonlySet<string> = new Set(US_STATES);
const KINDS: [string, (s: string) => boolean][] = [
  // Modifiers and places of service share a shape (59, XE; 19, 22): either is vocabulary.
  ['modifier or place-of-service code', (s) => /^[A-Z0-9]{2}$/.test(s)],
  ['remark code', (s) => /^(?:M|N|MA)\d{1,3}$/.test(s)],
];

/** Code-shaped literals that are a publisher's file layout, not billing vocabulary (file:line's literal -> why). */
const LAYOUTS: Readonly<Record<string, string>> = {
  'datasets/zip_locality/dataset.ts PSEUDO_STATES': "CMS's ZIP5 file splits Kansas and Missouri into carrier pseudo-states (EK, WK, EM, WM): a layout quirk of that file",
  'datasets/facilities/dataset.ts POS_HOSPITAL_SUBTYPES': "the Provider of Services file's PRVDR_CTGRY_SBTYP_CD values (hospital subtypes), not places of service",
};

interface Offender {
  at: string;
  kind: string;
  members: string[];
}

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && relative(ROOT, p) !== join('lib', 'vocabulary')) out.push(...(await sources(p)));
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

type Node = { type?: string; span?: { start: number }; [k: string]: unknown };

/** The string members of an array literal, or the keys of an object literal. */
function members(n: Node): string[] | null {
  if (n.type === 'ArrayExpression') return (n.elements as { expression?: Node }[]).map((e) => (e?.expression?.type === 'StringLiteral' ? (e.expression.value as string) : null)).filter((x): x is string => x !== null);
  if (n.type === 'ObjectExpression') {
    return (n.properties as { key?: Node }[])
      .map((p) => (p.key?.type === 'StringLiteral' || p.key?.type === 'Identifier' ? (p.key.value as string) : p.key?.type === 'NumericLiteral' ? String(p.key.value) : null))
      .filter((x): x is string => x !== null);
  }
  return null;
}

async function scan(file: string): Promise<Offender[]> {
  const text = await readFile(file, 'utf8');
  const ast = parseSync(text, { syntax: 'typescript' }) as unknown as Node & { span: { start: number } };
  const base = ast.span.start;
  const rel = relative(ROOT, file);
  const out: Offender[] = [];
  // The name a literal is declared under (`const X = new Set([...])`), to match LAYOUTS by.
  const visit = (n: unknown, name: string | null): void => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach((x) => visit(x, name));
    const node = n as Node;
    const declared = node.type === 'VariableDeclarator' && (node.id as Node)?.type === 'Identifier' ? ((node.id as Node).value as string) : name;
    const m = members(node);
    if (m && m.length >= 3) {
      for (const [kind, test] of KINDS) {
        // A list of states is not billing vocabulary (a modifier list may hold RT or LT beside them).
        if (m.every(test) && !m.every((x) => STATES.has(x)) && !Object.hasOwn(LAYOUTS, `${rel} ${declared}`)) {
          out.push({ at: `${rel}:${text.slice(0, node.span!.start - base).split('\n').length}${declared ? ` ${declared}` : ''}`, kind, members: m.slice(0, 6) });
        }
      }
    }
    for (const v of Object.values(node)) if (v && typeof v === 'object') visit(v, declared);
  };
  visit(ast, null);
  return out;
}

describe('one billing vocabulary', () => {
  it('has no set of modifier, place-of-service or remark codes outside lib/vocabulary', async () => {
    const files = (await Promise.all(SCANNED.map((d) => sources(join(ROOT, d))))).flat();
    const offenders = (await Promise.all(files.map(scan))).flat();
    expect(offenders.map((o) => `${o.at}: ${o.kind}s ${o.members.join(', ')}`)).toEqual([]);
  });

  it('would catch a second home (the scan itself)', async () => {
    const { writeFile, mkdtemp, rm } = await import('node:fs/promises');
    const dir = await mkdtemp(join(ROOT, 'server', '.scan-'));
    try {
      const f = join(dir, 'x.ts');
      await writeFile(f, "const BYPASS = new Set(['59', 'XE', 'XS', 'XU']);\nconst POS = ['19', '22', '23'];\nconst FINE = ['ok', 'yes', 'no'];\n");
      expect((await scan(f)).map((o) => [o.kind, o.members.length])).toEqual([
        ['modifier or place-of-service code', 4],
        ['modifier or place-of-service code', 3],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lists each modifier and place of service once, with a meaning', () => {
    for (const [code, m] of Object.entries(MODIFIERS)) expect(m.meaning.length, code).toBeGreaterThan(3);
    expect([...HOSPITAL_OUTPATIENT_POS].sort()).toEqual(['19', '22', '23']);
    for (const p of HOSPITAL_POS) expect(FACILITY_RATE_POS.has(p), p).toBe(true);
  });
});
