import { sourceTables } from '../../datasets/_shared/table.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IngestError } from '../../datasets/_shared/issue.js';
import type { Dataset } from '../../datasets/types.js';
import type { Issue } from '../../warehouse/errors.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import type { IndexSpec } from '../../warehouse/storage.js';
import type { Loaded, RunSql } from './load.js';
import { HASH_PASS_ROWS, hashPasses, hashShare } from './passes.js';

// The third stage: is the staged version fit to publish?

/**
 * Writes the rejects file (JSONL, when there are rejects) and refuses a load with no rows, or
 * whose share of rejected rows is above `threshold`, naming the first rejected row.
 */
export async function checkRejects(loaded: Loaded, rejectsFile: string, threshold: number, firstFile: string): Promise<void> {
  const { rows, rejects, rejectLines } = loaded;
  const total = rows + rejects;
  const rate = total === 0 ? 0 : rejects / total;
  if (rows === 0) throw new IngestError('no data rows', firstFile);
  if (rejects > 0) {
    await mkdir(dirname(rejectsFile), { recursive: true });
    await writeFile(rejectsFile, rejectLines.join('\n') + '\n');
  }
  if (rate > threshold) {
    const first = JSON.parse(rejectLines[0]!) as { file: string; line: number; issues: Issue[] };
    const iss = first.issues[0];
    throw new IngestError(
      `${rejects} of ${total} rows rejected (${(rate * 100).toFixed(2)}% > ${(threshold * 100).toFixed(2)}%); first: ${iss?.loc.join('.')} ${iss?.msg} (see ${rejectsFile})`,
      first.file,
      first.line,
      typeof iss?.loc[2] === 'string' ? iss.loc[2] : undefined,
    );
  }
}

/**
 * Runs the dataset's `finalize` step, if any, and recounts its tables into `loaded` (a merge may
 * fold rows of any table: the FDA NDC text and JSON sources become one product and package row).
 */
export async function finalizeRows(dataset: Dataset<any>, run: RunSql, loaded: Loaded): Promise<void> {
  if (!dataset.finalize) return;
  await dataset.finalize(run, quoteIdent(dataset.tables[0]!.name));
  await recountTables(dataset, run, loaded);
}

/** Counts every table's rows again into `loaded` (after a step that merged or folded rows). */
export async function recountTables(dataset: Dataset<any>, run: RunSql, loaded: Loaded): Promise<void> {
  for (const t of dataset.tables) {
    const n = Number((await run(`SELECT count(*) AS n FROM ${quoteIdent(t.name)}`))[0]!.n);
    if (!t.derived) loaded.rows += n - loaded.tableRows.get(t.name)!;
    loaded.tableRows.set(t.name, n);
  }
}

/** Builds a dataset's indexes (its storage's, `datasets/storage.ts`) on its final rows (after `finalize`, a fold and the key check). */
export async function indexTables(indexes: IndexSpec[] | undefined, run: RunSql): Promise<void> {
  for (const ix of indexes ?? []) {
    await run(`CREATE INDEX ${quoteIdent(`${ix.table}_${ix.columns.join('_')}`)} ON ${quoteIdent(ix.table)} (${ix.columns.map(quoteIdent).join(', ')})`);
  }
}

/** Refuses a version in which some source table's key columns name one row twice. */
export async function checkKeys(dataset: Dataset<any>, run: RunSql, firstFile: string, passRows = HASH_PASS_ROWS): Promise<void> {
  for (const t of sourceTables(dataset.tables)) {
    const keyList = t.key.map(quoteIdent).join(', ');
    // In passes over hash partitions of the key, so the check's memory does not grow with the file.
    const passes = hashPasses(Number((await run(`SELECT count(*) AS n FROM ${quoteIdent(t.name)}`))[0]!.n), passRows);
    for (let i = 0; i < passes; i++) {
      const dup = await run(`SELECT ${keyList}, count(*)::INTEGER AS n FROM ${quoteIdent(t.name)} WHERE ${hashShare(keyList, i, passes)} GROUP BY ALL HAVING count(*) > 1 LIMIT 1`);
      if (dup.length > 0) {
        const { n, ...key } = dup[0]!;
        throw new IngestError(`duplicate key ${JSON.stringify(key)} in table ${t.name} appears ${n} times (key columns: ${t.key.join(', ')})`, firstFile);
      }
    }
  }
}
