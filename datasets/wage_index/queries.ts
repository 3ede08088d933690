import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { versionLabel } from '../_shared/versions.js';
import { wageIndex, type WageIndexRow } from './dataset.js';

/** A CBSA's wage index with the version it came from. */
export interface WageIndexAnswer extends WageIndexRow {
  /** wage_index version label, e.g. `FY2026`. */
  version: string;
}

/**
 * The IPPS wage index and GAF of a CBSA (5 digits, or a 2-digit state code for a rural area) from
 * the latest loaded Table 3, or from `version` (e.g. `FY2026`) when given. Payment composition
 * uses `wage_index` in (rate * 0.6 * wage_index) + (rate * 0.4).
 * @throws NotFoundError when wage_index (or that version) is not loaded or the CBSA is not listed.
 */
export async function getWageIndex(snapshot: SnapshotReader, cbsa: string, version?: string): Promise<WageIndexAnswer> {
  const id = wageIndex.id;
  const v = version ?? versionLabel(snapshot, id);
  if (!v || !snapshot.versions(id).some((x) => x.version === v)) {
    throw new NotFoundError(version ? `${id} version ${version} is not loaded` : `${id} is not loaded`);
  }
  const code = cbsa.trim();
  const rows = await snapshot.memo(`${id}:cbsa:${v}:${code}`, () =>
    snapshot.all<WageIndexRow>(
      `SELECT cbsa, area_name, state, wage_index, gaf, reclassified_wage_index, reclassified_gaf, is_rural, fiscal_year
         FROM ${id} WHERE version = $1 AND cbsa = $2`,
      [v, code],
    ),
  );
  const row = rows[0];
  if (!row) throw new NotFoundError(`CBSA ${code} is not in ${id} ${v}`);
  return { ...row, version: v };
}
