import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { ClfsRow } from './dataset.js';
import { versionLabel } from '../_shared/versions.js';
import { knownCodes } from '../_shared/codes.js';

/** A stored CLFS row plus the version label it was loaded under. */
export type ClfsFee = ClfsRow & { version: string };

/** Latest loaded CLFS version effective in `year` (CLFS is quarterly), or the latest overall. */
export function clfsVersionFor(snapshot: SnapshotReader, year?: number): string | undefined {
  return versionLabel(snapshot, 'clfs', { rule: 'effective', year });
}

/** Every CLFS row of a code (plain and `QW`) in the version for `year`; empty when absent. */
export function findLabFees(snapshot: SnapshotReader, code: string, year?: number): Promise<{ version: string | undefined; rows: ClfsFee[] }> {
  const version = clfsVersionFor(snapshot, year);
  if (!version) return Promise.resolve({ version, rows: [] });
  return snapshot.memo(`clfs:fees:${version}:${code}`, async () => ({
    version,
    rows: await snapshot.all<ClfsFee>(`SELECT * FROM clfs WHERE version = $1 AND hcpcs_code = $2 ORDER BY modifier`, [version, code]),
  }));
}

/** True when the code is in any loaded CLFS version (404 versus "not in this year"). */
export async function isLabCode(snapshot: SnapshotReader, code: string): Promise<boolean> {
  return (await knownCodes(snapshot, 'clfs')).has(code);
}

/**
 * The national limit of a lab code for payment composition. `rate` is null for codes that are not
 * nationally priced (INDICATOR `L`, printed `00000.00`): the MAC prices them, so the caller must
 * not compute a $0 payment. A `QW` request falls back to the plain row (CMS prints the same limit
 * for the CLIA-waived variant; not every code repeats with `QW`). Null when the code is not on
 * the schedule for that year.
 */
export async function getLabRate(
  snapshot: SnapshotReader,
  hcpcs: string,
  modifier?: string,
  year?: number,
): Promise<{ hcpcs_code: string; modifier: string; rate: number | null; indicator: string; effective_date: string; short_descriptor: string; year: number; version: string } | null> {
  const { rows } = await findLabFees(snapshot, hcpcs, year);
  const mod = (modifier ?? '').trim().toUpperCase();
  const row = rows.find((r) => r.modifier === mod) ?? rows.find((r) => r.modifier === '');
  if (!row) return null;
  return {
    hcpcs_code: row.hcpcs_code,
    modifier: row.modifier,
    rate: row.rate,
    indicator: row.indicator,
    effective_date: row.effective_date,
    short_descriptor: row.short_descriptor,
    year: row.year,
    version: row.version,
  };
}
