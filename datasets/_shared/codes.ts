import type { DatasetName, SnapshotReader } from '../../warehouse/snapshot.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';

/**
 * The distinct codes of a dataset across all its loaded versions, as a set built once per
 * snapshot: "is this code on the schedule at all" (404 versus empty answers, payment blocks that
 * do not apply) costs a set lookup instead of a DuckDB query per new code.
 */
export function knownCodes(snapshot: SnapshotReader, dataset: DatasetName, column = 'hcpcs_code'): Promise<ReadonlySet<string>> {
  if (!snapshot.has(dataset)) return Promise.resolve(new Set<string>());
  return snapshot.memo(`known:${dataset}:${column}`, async () =>
    new Set((await snapshot.all<{ c: string }>(`SELECT DISTINCT ${quoteIdent(column)} AS c FROM ${quoteIdent(dataset)}`)).map((r) => r.c)),
    { pin: true },
  );
}
