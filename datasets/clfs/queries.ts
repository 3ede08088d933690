import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { clfs, type ClfsRow } from './dataset.js';
import { versionLabel } from '../_shared/versions.js';
import { knownCodes } from '../_shared/codes.js';

/** A stored CLFS row plus the version label it was loaded under. */
export type ClfsFee = ClfsRow & { version: string };

/** Latest loaded CLFS version effective in `year` (CLFS is quarterly), or the latest overall. */
export function clfsVersionFor(snapshot: SnapshotReader, year?: number): string | undefined {
  return versionLabel(snapshot, clfs.id, { rule: 'effective', year });
}

/** Every CLFS row of a code (plain and `QW`) in the version for `year`; empty when absent. */
export async function findLabFees(snapshot: SnapshotReader, code: string, year?: number): Promise<{ version: string | undefined; rows: ClfsFee[] }> {
  const version = clfsVersionFor(snapshot, year);
  return { version, rows: version ? await findLabFeesIn(snapshot, version, code) : [] };
}

/** Every CLFS row of a code (plain and `QW`) in one loaded version; empty when absent. */
export function findLabFeesIn(snapshot: SnapshotReader, version: string, code: string): Promise<ClfsFee[]> {
  return snapshot.memo(`${clfs.id}:fees:${version}:${code}`, () => snapshot.all<ClfsFee>(`SELECT * FROM ${clfs.id} WHERE version = $1 AND hcpcs_code = $2 ORDER BY modifier`, [version, code]));
}

/** True when the code is in any loaded CLFS version (404 versus "not in this year"). */
export async function isLabCode(snapshot: SnapshotReader, code: string): Promise<boolean> {
  return (await knownCodes(snapshot, clfs.id)).has(code);
}

/**
 * The CLFS rows that price a lab code with `modifier` for payment composition, best first: the
 * exact modifier row, then the plain row (CMS prints the same limit for the CLIA-waived `QW`
 * variant, and not every code repeats with `QW`). Empty when the code is not on the schedule for
 * that year. `rate` is null for codes not nationally priced (INDICATOR `L`, printed `00000.00`):
 * the MAC prices them, so the caller must not compute a $0 payment.
 */
export async function findLabRates(snapshot: SnapshotReader, hcpcs: string, modifier?: string, year?: number): Promise<ClfsFee[]> {
  const { rows } = await findLabFees(snapshot, hcpcs, year);
  const mod = (modifier ?? '').trim().toUpperCase();
  return [...rows.filter((r) => r.modifier === mod), ...(mod === '' ? [] : rows.filter((r) => r.modifier === ''))];
}
