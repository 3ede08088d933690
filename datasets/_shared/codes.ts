import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { quoteIdent } from '../../warehouse/snapshot.js';

/**
 * The distinct codes of a dataset across all its loaded versions, as a set built once per
 * snapshot: "is this code on the schedule at all" (404 versus empty answers, payment blocks that
 * do not apply) costs a set lookup instead of a DuckDB query per new code.
 */
export function knownCodes(snapshot: SnapshotReader, dataset: string, column = 'hcpcs_code'): Promise<ReadonlySet<string>> {
  if (!snapshot.has(dataset)) return Promise.resolve(new Set<string>());
  return snapshot.memo(`known:${dataset}:${column}`, async () =>
    new Set((await snapshot.all<{ c: string }>(`SELECT DISTINCT ${quoteIdent(column)} AS c FROM ${quoteIdent(dataset)}`)).map((r) => r.c)),
    { pin: true },
  );
}

/**
 * An NDC in the 11-digit 5-4-2 form billing uses (HIPAA), from any printed form: dashed 5-4-2,
 * or the FDA's 10-digit dashed forms 4-4-2, 5-3-2 and 5-4-1 padded with a leading zero in the
 * short segment (`0002-1433-80` -> `00002143380`), or 11 plain digits. Undefined otherwise (10
 * plain digits are ambiguous: which segment is short is unknown).
 */
export function toNdc11(raw: string): string | undefined {
  const s = raw.trim();
  const m = /^(\d{4,5})-(\d{3,4})-(\d{1,2})$/.exec(s);
  if (m) {
    const [, a, b, c] = m;
    if (a!.length + b!.length + c!.length !== 10 && !(a!.length === 5 && b!.length === 4 && c!.length === 2)) return undefined;
    return `${a!.padStart(5, '0')}${b!.padStart(4, '0')}${c!.padStart(2, '0')}`;
  }
  return /^\d{11}$/.test(s) ? s : undefined;
}
