import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { latestVersion } from '../locality_county/queries.js';
import type { WageIndexRow } from './dataset.js';

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
  const v = version ?? latestVersion(snapshot, 'wage_index');
  if (!v || !snapshot.versions('wage_index').some((x) => x.version === v)) {
    throw new NotFoundError(version ? `wage_index version ${version} is not loaded` : 'wage_index is not loaded');
  }
  const code = cbsa.trim();
  const rows = await snapshot.memo(`wage_index:cbsa:${v}:${code}`, () =>
    snapshot.all<WageIndexRow>(
      `SELECT cbsa, area_name, state, wage_index, gaf, reclassified_wage_index, reclassified_gaf, is_rural, fiscal_year
         FROM wage_index WHERE version = $1 AND cbsa = $2`,
      [v, code],
    ),
  );
  const row = rows[0];
  if (!row) throw new NotFoundError(`CBSA ${code} is not in wage_index ${v}`);
  return { ...row, version: v };
}

/**
 * The wage_index version in force on a date of service (`YYYY-MM-DD`): the loaded version with the
 * latest effective date on or before it (FY2026 runs from 2025-10-01). Undefined when none is.
 * Lets payment composition price a date with its own fiscal year instead of the newest table.
 */
export function wageIndexVersionForDate(snapshot: SnapshotReader, date: string): string | undefined {
  const inForce = snapshot.versions('wage_index').filter((v) => v.effective_date !== null && v.effective_date <= date);
  inForce.sort((a, b) => (a.effective_date! < b.effective_date! ? -1 : a.effective_date! > b.effective_date! ? 1 : 0));
  return inForce.at(-1)?.version;
}
