import { describe, expect, it } from 'vitest';
import { DATASETS, lookupDataset } from './registry.js';
import { STORAGE, storageOf } from './storage.js';

describe('the storage table', () => {
  it('names registered datasets only, and only tables they declare', () => {
    for (const [id, spec] of Object.entries(STORAGE)) {
      const dataset = lookupDataset(id);
      expect(dataset, id).toBeDefined();
      const tables = new Set(dataset!.tables.map((t) => t.name));
      const named = [...(spec.indexes ?? []).map((ix) => ix.table), ...(spec.records ? [spec.records.main, ...spec.records.lists].map((t) => t.table) : [])];
      for (const t of named) expect(tables.has(t), `${id}: table ${t}`).toBe(true);
      for (const ix of spec.indexes ?? []) for (const c of ix.columns) expect(dataset!.tables.find((t) => t.name === ix.table)!.columns.map((x) => x.name), `${id}.${ix.table}`).toContain(c);
      // Sidecar names are file names beside the version file: one each.
      const names = [...(spec.ranges ?? []), ...(spec.columnFiles ?? [])].map((s) => s.name);
      expect(new Set(names).size, id).toBe(names.length);
      for (const n of names) expect(n, id).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it('is the one home of storage: no dataset declaration carries indexes, row groups or sidecars', () => {
    for (const d of DATASETS) for (const k of ['indexes', 'rowGroupSize', 'records', 'ranges', 'columnFiles']) expect(Object.keys(d), `${d.id}.${k}`).not.toContain(k);
    expect(storageOf('gpci')).toEqual({});
    expect(storageOf('nppes').records?.key).toBe('CAST(npi AS BIGINT)');
  });
});
