import { DuckDBInstance } from '@duckdb/node-api';
import type { Dataset } from '../datasets/types.js';
import type { ChangeCounts } from '../warehouse/manifest.js';
import { quoteIdent, quoteString } from '../warehouse/snapshot.js';

export interface DiffResult {
  counts: ChangeCounts;
  samples: { added: string[]; removed: string[]; changed: string[] };
}

/**
 * Compares two version files of a dataset by its key columns: a row is added, removed, changed
 * (same key, some other column differs) or unchanged. DuckDB does the join, so this scales to the
 * multi-million-row NCCI files.
 */
export async function diffVersionFiles(dataset: Dataset<any>, fromFile: string | null, toFile: string, sampleSize = 5): Promise<DiffResult> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    const t = quoteIdent(dataset.id);
    await conn.run(`ATTACH ${quoteString(toFile)} AS new_v (READ_ONLY)`);
    const keyTextOf = (alias: string) => `concat_ws('|', ${dataset.key.map(quoteIdent).map((k) => `coalesce(CAST(${alias}.${k} AS VARCHAR), '')`).join(', ')})`;
    if (!fromFile) {
      // First load: every row is added; no join needed (it would cost seconds on NCCI files).
      const n = Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM new_v.main.${quoteIdent(dataset.id)}`)).getRowObjectsJS()[0]!.n);
      const first = await conn.runAndReadAll(`SELECT ${keyTextOf('t')} AS k FROM new_v.main.${quoteIdent(dataset.id)} t ORDER BY k LIMIT ${sampleSize}`);
      return { counts: { added: n, removed: 0, changed: 0, unchanged: 0 }, samples: { added: first.getRowObjectsJS().map((r) => String(r.k)), removed: [], changed: [] } };
    }
    await conn.run(`ATTACH ${quoteString(fromFile)} AS old_v (READ_ONLY)`);
    const oldRef = `old_v.main.${t}`;
    const keys = dataset.key.map(quoteIdent);
    const oldCols = new Set(
      (await conn.runAndReadAll(`SELECT column_name FROM (DESCRIBE SELECT * FROM ${oldRef})`)).getRowObjectsJS().map((r) => String(r.column_name)),
    );
    const values = dataset.columns.map((c) => c.name).filter((c) => !dataset.key.includes(c) && oldCols.has(c));
    const on = keys.map((k) => `o.${k} IS NOT DISTINCT FROM n.${k}`).join(' AND ');
    const differs = values.length ? values.map((c) => `o.${quoteIdent(c)} IS DISTINCT FROM n.${quoteIdent(c)}`).join(' OR ') : 'false';
    const keyText = keyTextOf;
    await conn.run(`
      CREATE TEMP TABLE d AS
      SELECT CASE WHEN o.o_present IS NULL THEN 'added'
                  WHEN n.n_present IS NULL THEN 'removed'
                  WHEN ${differs} THEN 'changed' ELSE 'unchanged' END AS kind,
             CASE WHEN n.n_present THEN ${keyText('n')} ELSE ${keyText('o')} END AS k
      FROM (SELECT *, true AS o_present FROM ${oldRef}) o
      FULL OUTER JOIN (SELECT *, true AS n_present FROM new_v.main.${t}) n ON ${on}`);
    const counts = Object.fromEntries(
      (await conn.runAndReadAll(`SELECT kind, count(*)::INTEGER AS n FROM d GROUP BY kind`)).getRowObjectsJS().map((r) => [String(r.kind), Number(r.n)]),
    );
    const sample = async (kind: string) =>
      (await conn.runAndReadAll(`SELECT k FROM d WHERE kind = $1 ORDER BY k LIMIT ${sampleSize}`, [kind])).getRowObjectsJS().map((r) => String(r.k));
    return {
      counts: { added: counts.added ?? 0, removed: counts.removed ?? 0, changed: counts.changed ?? 0, unchanged: counts.unchanged ?? 0 },
      samples: { added: await sample('added'), removed: await sample('removed'), changed: await sample('changed') },
    };
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}
