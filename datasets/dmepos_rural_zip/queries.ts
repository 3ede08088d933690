import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { dmeposRuralZip } from './dataset.js';

/**
 * True when the ZIP (5 digits or ZIP+4) is on the latest loaded DMEPOS rural ZIP list, i.e. the
 * `(R)` fee applies there. False when the list is not loaded; callers that need to tell "not rural"
 * from "unknown" check `snapshot.has('dmepos_rural_zip')` (reliability marks it degraded).
 */
export async function isDmeRuralZip(snapshot: SnapshotReader, zip: string): Promise<boolean> {
  const z = /^(\d{5})(?:-?\d{4})?$/.exec(zip.trim())?.[1];
  const version = snapshot.versions(dmeposRuralZip.id).at(-1)?.version;
  if (!z || !version) return false;
  return snapshot.memo(`${dmeposRuralZip.id}:${version}:${z}`, async () => {
    const rows = await snapshot.all(`SELECT 1 FROM ${dmeposRuralZip.id} WHERE version = $1 AND zip = $2 LIMIT 1`, [version, z]);
    return rows.length > 0;
  });
}
