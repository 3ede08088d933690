import { DuckDBInstance } from '@duckdb/node-api';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dataset, NativeLoadResult } from '../datasets/types.js';
import { ingestFiles, type IngestSummary } from '../ingest/pipeline.js';
import { Warehouse } from '../warehouse/store.js';

export interface LoadOutcome {
  summary: IngestSummary;
  rows: Record<string, unknown>[];
  /** The rejects file's text ('' without rejects). */
  rejects: string;
}

async function tableRows(file: string, table: string, orderBy: string): Promise<Record<string, unknown>[]> {
  const inst = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const c = await inst.connect();
  try {
    return (await c.runAndReadAll(`SELECT * FROM "${table}" ORDER BY ${orderBy}`)).getRowObjectsJS();
  } finally {
    c.closeSync();
    inst.closeSync();
  }
}

/**
 * Ingests `files` twice through the whole pipeline, into fresh warehouses under `dir`: with the
 * dataset's native loader and with its row parser alone. Returns both tables (sorted by
 * `orderBy`), both rejects files, and whether the native loader took every call (null = handed
 * over to the parser).
 */
export async function compareLoads(dataset: Dataset<any>, files: string[], dir: string, orderBy: string) {
  const outcomes: (NativeLoadResult | null)[] = [];
  const native: Dataset<any> = {
    ...dataset,
    loadNative: async (...a) => {
      const r = await dataset.loadNative!(...a);
      outcomes.push(r);
      return r;
    },
  };
  const run = async (ds: Dataset<any>, sub: string): Promise<LoadOutcome> => {
    const wh = new Warehouse(join(dir, sub));
    const summary = await ingestFiles(wh, { dataset: ds, files, rejectThreshold: 1 });
    const file = wh.path((await wh.current())!.datasets[dataset.id]!.at(-1)!.file);
    return { summary, rows: await tableRows(file, dataset.tables[0]!.name, orderBy), rejects: summary.rejects_file ? (await readFile(summary.rejects_file, 'utf8')).trim() : '' };
  };
  const a = await run(native, 'native');
  const b = await run({ ...dataset, loadNative: undefined }, 'parser');
  return { native: a, js: b, tookNative: outcomes.length > 0 && outcomes.every((o) => o !== null) };
}
