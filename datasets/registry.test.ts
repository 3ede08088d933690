import { existsSync, readdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS, type DatasetId } from './registry.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Datasets that share one parser are tested together in their family folder: its
 * `family.test.ts` runs what every member must do (describe.each over the members) and imports
 * each member's dataset; what only one member shows may still sit beside the member in
 * `datasets/<id>/<id>.test.ts`. Every other dataset has its own test there.
 */
const FAMILIES: Record<string, DatasetId[]> = {
  _ncci_mue: ['ncci_mue_prac', 'ncci_mue_hosp', 'ncci_mue_dme', 'medicaid_mue_prac', 'medicaid_mue_hosp', 'medicaid_mue_dme'],
  _ncci_ptp: ['ncci_ptp_prac', 'ncci_ptp_hosp', 'medicaid_ptp_prac', 'medicaid_ptp_hosp'],
};
const familyOf = (id: string) => Object.keys(FAMILIES).find((f) => FAMILIES[f]!.some((m) => m === id));

/**
 * Every dataset folder: the directories under datasets/ not starting with `_` (those hold shared
 * and family code). Read from the tree, not the registry, so a folder nobody registered is seen.
 */
const FOLDERS = readdirSync(join(ROOT, 'datasets'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && !e.name.startsWith('_'))
  .map((e) => e.name)
  .sort();
const IDS: string[] = DATASETS.map((d) => d.id);

describe('dataset registry', () => {
  it('has unique snake_case ids', () => {
    expect(new Set(IDS).size).toBe(IDS.length);
    for (const id of IDS) expect(id).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('types the ids as a closed union: DatasetId is not string', () => {
    // Checked by tsc: a dataset whose id is typed `string` (a factory that lost the literal) makes DatasetId `string` and this line fail to compile.
    const closed: string extends DatasetId ? false : true = true;
    expect(closed).toBe(true);
    const id: DatasetId = 'wage_index';
    expect(IDS).toContain(id);
  });

  it('registers every dataset folder: each datasets/<id>/ not starting with _ is listed in datasets/registry.ts', () => {
    expect(FOLDERS.length, 'dataset folders found under datasets/').toBeGreaterThan(30);
    expect(
      FOLDERS.filter((f) => !IDS.includes(f)),
      'folders missing from datasets/registry.ts (npm run new:dataset -- <id> scaffolds and registers one; a shared folder starts with _)',
    ).toEqual([]);
  });

  it('has a folder named like each registered id', () => {
    expect(IDS.filter((id) => !FOLDERS.includes(id)), 'registered ids without a datasets/<id>/ folder').toEqual([]);
  });

  it('lists only registered datasets as family members, each in one family', () => {
    const members = Object.values(FAMILIES).flat();
    expect(new Set(members).size).toBe(members.length);
    for (const id of members) expect(DATASETS.map((d) => d.id)).toContain(id);
  });

  it('keeps dataset tests under one name: a dataset folder holds only its <id>.test.ts', async () => {
    for (const id of FOLDERS) {
      const tests = (await readdir(join(ROOT, 'datasets', id))).filter((f) => f.endsWith('.test.ts'));
      expect(tests.filter((f) => f !== `${id}.test.ts`), `datasets/${id}/`).toEqual([]);
    }
  });

  // Per folder, registered or not (the test above names an unregistered one): what a dataset needs besides its declaration.
  for (const id of FOLDERS) {
    describe(`datasets/${id}/`, () => {
      it('has a README, a seed (or a README saying why not) and a golden file', async () => {
        expect(existsSync(join(ROOT, 'datasets', id, 'README.md')), 'README.md').toBe(true);
        // A dataset whose figures cannot be written without inventing them ships no seed, and says so.
        const readme = await readFile(join(ROOT, 'datasets', id, 'README.md'), 'utf8');
        if (!/^No seed: /m.test(readme)) expect((await readdir(join(ROOT, 'seeds', id)).catch(() => [])).length, `seed files in seeds/${id}/`).toBeGreaterThan(0);
        expect(existsSync(join(ROOT, 'test/golden', `${id}.jsonl`)), `test/golden/${id}.jsonl`).toBe(true);
      });

      it('has its test beside it, or is tested by its family test', async () => {
        const family = familyOf(id);
        if (family) {
          const text = await readFile(join(ROOT, 'datasets', family, 'family.test.ts'), 'utf8');
          expect(text, `datasets/${family}/family.test.ts imports ${id}`).toContain(`from '../${id}/dataset.js'`);
        } else {
          expect(existsSync(join(ROOT, 'datasets', id, `${id}.test.ts`)), `datasets/${id}/${id}.test.ts`).toBe(true);
        }
      });
    });
  }

  for (const d of DATASETS) {
    describe(d.id, () => {
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

describe('seed origins (seeds/origins.json)', () => {
  it('lists every seed folder once, as real_excerpt, curated or illustrative, and docs/datasets.md says the same', async () => {
    const { seedOrigins } = await import('../ingest/seed.js');
    const origins = await seedOrigins(join(ROOT, 'seeds'));
    const folders = readdirSync(join(ROOT, 'seeds'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(Object.keys(origins).sort()).toEqual(folders);
    // The dataset table's seed column names an illustrative seed "illustrative" and never calls it real rows.
    const doc = await readFile(join(ROOT, 'docs/datasets.md'), 'utf8');
    for (const [id, origin] of Object.entries(origins)) {
      const row = doc.split('\n').find((l) => l.startsWith('|') && l.split('|')[1]!.includes(`\`${id}\``));
      expect(row, `docs/datasets.md has a row for ${id}`).toBeDefined();
      const seedCell = row!.split('|').at(-2)!;
      const said = /illustrative/i.test(seedCell) ? 'illustrative' : /curated|cited/i.test(seedCell) ? 'curated' : 'real_excerpt';
      if (origin === 'illustrative') expect(said, `${id}: ${seedCell}`).toBe('illustrative');
      else expect(seedCell, `${id}: ${seedCell}`).not.toMatch(/^\s*illustrative/i);
    }
  });
});
