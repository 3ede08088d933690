import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { OppsAddendumBRow } from './dataset.js';
import { versionForYear } from '../_shared/versions.js';

/** A stored Addendum B row plus the version label (`2026-01`) it was loaded under. */
export type OppsRate = OppsAddendumBRow & { version: string };

/** Latest loaded Addendum B effective in `year` (quarterly releases), or the latest overall. */
export function oppsVersionFor(snapshot: SnapshotReader, year?: number): string | undefined {
  return versionForYear(snapshot, 'opps_addendum_b', year);
}

/**
 * The OPPS Addendum B row of a HCPCS code: status indicator, APC, relative weight, national
 * payment rate and copayments, from the release for `year` (latest when omitted). Null when the
 * code is not in that release. `payment_rate`/`apc_code` are null for codes not paid under an APC
 * (SI `B`, `E1`, `N`, `Q4`, …): composition must treat those as packaged/not payable, not as $0.
 */
export async function getOppsRate(snapshot: SnapshotReader, hcpcs: string, year?: number): Promise<OppsRate | null> {
  const version = oppsVersionFor(snapshot, year);
  if (!version) return null;
  return snapshot.memo(`opps_addendum_b:${version}:${hcpcs}`, async () => {
    const rows = await snapshot.all<OppsRate>(`SELECT * FROM opps_addendum_b WHERE version = $1 AND hcpcs_code = $2`, [version, hcpcs]);
    return rows[0] ?? null;
  });
}

/** True when the code is in any loaded Addendum B release. */
export async function isOppsCode(snapshot: SnapshotReader, hcpcs: string): Promise<boolean> {
  if (!snapshot.has('opps_addendum_b')) return false;
  return snapshot.memo(`opps_addendum_b:known:${hcpcs}`, async () => (await snapshot.all(`SELECT 1 FROM opps_addendum_b WHERE hcpcs_code = $1 LIMIT 1`, [hcpcs])).length > 0);
}
