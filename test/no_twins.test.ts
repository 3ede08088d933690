import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(p)));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

describe('every shape comes from one schema', () => {
  it('has no hand-written interface beside a zod schema of the same name (XSchema gives the type X)', async () => {
    const files = [...(await sources(join(ROOT, 'server'))), ...(await sources(join(ROOT, 'datasets'))), ...(await sources(join(ROOT, 'warehouse')))];
    const interfaces = new Map<string, string>();
    const schemas = new Set<string>();
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      for (const m of text.matchAll(/^export interface (\w+)/gm)) interfaces.set(m[1]!, relative(ROOT, f));
      for (const m of text.matchAll(/^(?:export )?const (\w+)Schema\b/gm)) schemas.add(m[1]!);
    }
    expect(interfaces.size).toBeGreaterThan(20);
    expect(schemas.size).toBeGreaterThan(20);
    const twins = [...interfaces].filter(([name]) => schemas.has(name)).map(([name, file]) => `${file}: interface ${name} beside ${name}Schema`);
    expect(twins).toEqual([]);
  });
});
