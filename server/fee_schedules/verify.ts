import { clfs } from '../../datasets/clfs/dataset.js';
import { findLabFees } from '../../datasets/clfs/queries.js';
import type { SourceFile } from '../../datasets/_shared/source.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { toLabRow } from './service.js';

/** One CLFS row the lab route answers otherwise than the file says. */
export interface LabDifference {
  line: number;
  code: string;
  modifier: string;
  field: 'rate' | 'indicator' | 'effective_date' | 'row';
  file: string | number | null;
  answered: string | number | null;
}

/**
 * `rcm verify clfs`: a CLFS file read back through the lab route's own lookup and answer row
 * (`findLabFees`, `toLabRow`, as `GET /v1/fee-schedules/lab/{code}` answers them): every row of the
 * file, its rate, indicator and effective date, in the loaded release of its year. A row the
 * parser refuses is a difference too (the file is not what was loaded).
 */
export async function verifyClfs(snapshot: SnapshotReader, file: SourceFile): Promise<{ version: string | null; checked: number; differences: LabDifference[] }> {
  const out = { version: null as string | null, checked: 0, differences: [] as LabDifference[] };
  for await (const item of clfs.parse(file, { onBytes: () => undefined })) {
    out.checked++;
    if (item.issues) {
      out.differences.push({ line: item.line, code: '', modifier: '', field: 'row', file: item.issues.map((i) => i.msg).join('; '), answered: null });
      continue;
    }
    const r = item.row;
    const fees = await findLabFees(snapshot, r.hcpcs_code, r.year);
    out.version ??= fees.version ?? null;
    const got = fees.rows.find((x) => x.modifier === r.modifier);
    if (!got) {
      out.differences.push({ line: item.line, code: r.hcpcs_code, modifier: r.modifier, field: 'row', file: 'in the file', answered: fees.version ? `not in clfs ${fees.version}` : 'no CLFS release of its year is loaded' });
      continue;
    }
    const answer = toLabRow(got);
    for (const field of ['rate', 'indicator', 'effective_date'] as const) {
      if (answer[field] !== r[field]) out.differences.push({ line: item.line, code: r.hcpcs_code, modifier: r.modifier, field, file: r[field], answered: answer[field] });
    }
  }
  return out;
}
