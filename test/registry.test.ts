import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../datasets/registry.js';

const ROOT = resolve(import.meta.dirname, '..');

describe('dataset registry', () => {
  it('has unique snake_case ids', () => {
    const ids = DATASETS.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  for (const d of DATASETS) {
    describe(d.id, () => {
      it('has a folder with a README, a seed (or a README saying why not) and a golden file', async () => {
        expect(existsSync(join(ROOT, 'datasets', d.id, 'README.md')), 'README.md').toBe(true);
        // A dataset whose figures cannot be written without inventing them ships no seed, and says so.
        const readme = await readFile(join(ROOT, 'datasets', d.id, 'README.md'), 'utf8');
        if (!/^No seed: /m.test(readme)) expect((await readdir(join(ROOT, 'seeds', d.id))).length, 'seed files').toBeGreaterThan(0);
        expect(existsSync(join(ROOT, 'test/golden', `${d.id}.jsonl`)), 'golden file').toBe(true);
      });

      it('declares each table once: columns derived from its row schema, key columns in it, no reserved column', () => {
        expect(d.tables.length).toBeGreaterThan(0);
        expect(d.tables[0]!.name === d.id || d.tables.length > 1).toBe(true);
        expect(d.columns).toEqual(d.tables[0]!.columns);
        for (const t of d.tables) {
          const names = t.columns.map((c) => c.name);
          expect(names).toEqual(Object.keys(t.row.shape));
          expect(t.key.length).toBeGreaterThan(0);
          for (const k of t.key) expect(names).toContain(k);
          expect(names).not.toContain('version');
          expect(new Set(names).size).toBe(names.length);
          for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9_]*$/);
        }
        expect(new Set(d.tables.map((t) => t.name)).size).toBe(d.tables.length);
      });

      it('describes its formats and publisher', () => {
        expect(d.formats.length).toBeGreaterThan(0);
        expect(d.publisher.length).toBeGreaterThan(2);
        expect(d.title.length).toBeGreaterThan(2);
      });
    });
  }
});
