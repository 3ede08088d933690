import { NotFoundError } from '../../warehouse/errors.js';
import { selectVersion } from '../_shared/versions.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { mpfsRvu, type MpfsRvuRow } from './dataset.js';

export type RvuRow = MpfsRvuRow & { version: string };

/** CMS PFS status codes (RVU file readme, RVU25D.pdf "Status Code"). */
export const STATUS_CODES: Record<string, string> = {
  A: 'Active code, paid separately under the PFS',
  B: 'Bundled code, payment included in other services',
  C: 'Carrier (MAC) priced',
  D: 'Deleted code',
  E: 'Excluded from the PFS by regulation',
  F: 'Deleted/discontinued code, no grace period',
  G: 'Not valid for Medicare, another code applies',
  H: 'Deleted modifier for this code',
  I: 'Not valid for Medicare purposes',
  J: 'Anesthesia service',
  M: 'Measurement code, used for reporting only',
  N: 'Non-covered service',
  P: 'Bundled or excluded',
  R: 'Restricted coverage',
  T: 'Injection paid only when no other PFS service is billed',
  X: 'Statutory exclusion',
};

/**
 * All RVU rows grouped by code, built once per snapshot. A release is ~20k rows, so an in-memory
 * map answers a lookup in microseconds where a DuckDB point query takes milliseconds.
 */
function rvuIndex(snapshot: SnapshotReader): Promise<Map<string, RvuRow[]>> {
  return snapshot.memo(`${mpfsRvu.id}:index`, async () => {
    const rows = await snapshot.all<RvuRow>(`SELECT * FROM ${mpfsRvu.id} ORDER BY hcpcs, year, quarter, modifier`);
    const index = new Map<string, RvuRow[]>();
    for (const r of rows) {
      const list = index.get(r.hcpcs);
      if (list) list.push(r);
      else index.set(r.hcpcs, [r]);
    }
    return index;
  }, { pin: true });
}

/** Every RVU row of a code across all loaded releases, oldest release first. */
export async function findRvuRows(snapshot: SnapshotReader, code: string): Promise<RvuRow[]> {
  if (!snapshot.has(mpfsRvu.id)) return [];
  return (await rvuIndex(snapshot)).get(code) ?? [];
}

/**
 * The RVU row for a code and modifier on a date of service (or the latest release). Throws
 * NotFoundError when the code is absent from every loaded release.
 */
export async function getRvu(
  snapshot: SnapshotReader,
  code: string,
  modifier: string,
  dateOfService?: string,
): Promise<{ row: RvuRow; warnings: string[] }> {
  const rows = await findRvuRows(snapshot, code);
  if (rows.length === 0) throw new NotFoundError(`code ${code} is not in the Medicare physician fee schedule RVU file`);
  const warnings: string[] = [];
  const versions = snapshot.versions(mpfsRvu.id).filter((v) => rows.some((r) => r.version === v.version));
  const pick = selectVersion(mpfsRvu.id, versions, { rule: 'effective', date: dateOfService })!;
  if (pick.warning) warnings.push(pick.warning);
  const inVersion = rows.filter((r) => r.version === pick!.version.version);
  const row = inVersion.find((r) => r.modifier === modifier);
  if (!row) {
    const mods = inVersion.map((r) => r.modifier || '(none)').join(', ');
    throw new NotFoundError(`code ${code} has no RVU row with modifier '${modifier || '(none)'}' in release ${pick!.version.version}; modifiers available: ${mods}`);
  }
  return { row, warnings };
}

/** The conversion factors a release prints in its CONV FACTOR column, and its calendar year. */
export interface ReleaseFactors {
  version: string;
  year: number;
  /** The factor of the non-QPP (or only) file; null when the release loaded only the QPP file. */
  non_qpp: number | null;
  /** The QPP file's factor, or the only factor of a year with one (before 2026); null when none was loaded. */
  qpp: number | null;
}

/**
 * The factors of the RVU release a date of service selects (the calendar-year rule the RVUs are
 * chosen by: the date's year, else the nearest release), for a code without a row of its own.
 * Undefined when mpfs_rvu is not loaded.
 */
export async function releaseFactorsOn(snapshot: SnapshotReader, dateOfService: string): Promise<ReleaseFactors | undefined> {
  const pick = selectVersion(mpfsRvu.id, snapshot.versions(mpfsRvu.id), { rule: 'year', date: dateOfService });
  if (!pick) return undefined;
  const version = pick.version.version;
  return snapshot.memo(`${mpfsRvu.id}:factors:${version}`, async () => {
    const [r] = await snapshot.all<{ year: number; non_qpp: number | null; qpp: number | null }>(
      `SELECT any_value(year) AS year,
              max(conv_factor) FILTER (WHERE cf_variant <> 'QPP') AS non_qpp,
              max(coalesce(conv_factor_qpp, CASE WHEN cf_variant = 'all' THEN conv_factor END)) AS qpp
         FROM ${mpfsRvu.id} WHERE version = $1`,
      [version],
    );
    return { version, year: Number(r?.year), non_qpp: r?.non_qpp ?? null, qpp: r?.qpp ?? null };
  });
}
