import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, it } from 'vitest';
import { sampleFile, toSourceFile } from '../datasets/_shared/source.js';
import { DATASETS } from '../datasets/registry.js';
import { expectGolden } from './helpers/golden.js';

const ROOT = resolve(import.meta.dirname, '..');

/** Seed files of a dataset (folder or per-version sub-folders) plus test/fixtures/<id>/ ugly excerpts. */
async function inputs(id: string): Promise<string[]> {
  const out: string[] = [];
  for (const base of [join(ROOT, 'seeds', id), join(ROOT, 'test/fixtures', id)]) {
    const walk = async (d: string): Promise<void> => {
      const names = await readdir(d).catch(() => [] as string[]);
      for (const n of names.sort()) {
        if (n.endsWith('.md')) continue;
        const p = join(d, n);
        if ((await stat(p)).isDirectory()) await walk(p);
        else out.push(p);
      }
    };
    await walk(base);
  }
  return out;
}

describe('golden ingest output per dataset (rows and rejects as JSONL)', () => {
  for (const d of DATASETS) {
    it(`${d.id}: parses its seed and fixture files into the reviewed rows and rejects`, async () => {
      const items: unknown[] = [];
      for (const path of await inputs(d.id)) {
        const file = await toSourceFile(path);
        const sample = await sampleFile(file);
        items.push({ file: path.slice(ROOT.length + 1), detected: d.detect(sample), version: d.version([sample]) ?? null });
        for await (const item of d.parse(file, { onBytes: () => {} })) {
          items.push(item.issues ? { line: item.line, issues: item.issues } : { line: item.line, row: item.row });
        }
      }
      await expectGolden(join(ROOT, 'test/golden', `${d.id}.jsonl`), items);
    });
  }
});
