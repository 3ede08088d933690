import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../datasets/registry.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Datasets that share one parser are tested together in their family folder: its
 * `family.test.ts` runs what every member must do (describe.each over the members) and imports
 * each member's dataset; what only one member shows may still sit beside the member in
 * `datasets/<id>/<id>.test.ts`. Every other dataset has its own test there.
 */
const FAMILIES: Record<string, string[]> = {
  _ncci_mue: ['ncci_mue_prac', 'ncci_mue_hosp', 'ncci_mue_dme', 'medicaid_mue_prac', 'medicaid_mue_hosp', 'medicaid_mue_dme'],
  _ncci_ptp: ['ncci_ptp_prac', 'ncci_ptp_hosp', 'medicaid_ptp_prac', 'medicaid_ptp_hosp'],
};
const familyOf = (id: string) => Object.keys(FAMILIES).find((f) => FAMILIES[f]!.includes(id));

describe('dataset registry', () => {
  it('has unique snake_case ids', () => {
    const ids = DATASETS.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('lists only registered datasets as family members, each in one family', () => {
    const members = Object.values(FAMILIES).flat();
    expect(new Set(members).size).toBe(members.length);
    for (const id of members) expect(DATASETS.map((d) => d.id)).toContain(id);
  });

  it('keeps dataset tests under one name: a dataset folder holds only its <id>.test.ts', async () => {
    for (const d of DATASETS) {
      const tests = (await readdir(join(ROOT, 'datasets', d.id))).filter((f) => f.endsWith('.test.ts'));
      expect(tests.filter((f) => f !== `${d.id}.test.ts`), `datasets/${d.id}/`).toEqual([]);
    }
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

      it('has its test beside it, or is tested by its family test', async () => {
        const family = familyOf(d.id);
        if (family) {
          const text = await readFile(join(ROOT, 'datasets', family, 'family.test.ts'), 'utf8');
          expect(text, `datasets/${family}/family.test.ts imports ${d.id}`).toContain(`from '../${d.id}/dataset.js'`);
        } else {
          expect(existsSync(join(ROOT, 'datasets', d.id, `${d.id}.test.ts`)), `datasets/${d.id}/${d.id}.test.ts`).toBe(true);
        }
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
