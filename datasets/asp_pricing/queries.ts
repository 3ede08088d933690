import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { aspPricing, type AspPricingRow } from './dataset.js';
import { versionLabel } from '../_shared/versions.js';

/** A stored ASP pricing row plus the quarter label (`2025Q1`) it was loaded under. */
export type AspPaymentLimit = AspPricingRow & { version: string };

/**
 * The Part B payment limit rows (one, or none when the code is not on the file) per billing unit
 * of a drug HCPCS from the latest loaded ASP quarter (`payment_limit` null where CMS prints `N/A`).
 */
export async function findAspPaymentLimits(snapshot: SnapshotReader, hcpcs: string): Promise<AspPaymentLimit[]> {
  const version = versionLabel(snapshot, aspPricing.id);
  if (!version) return [];
  return snapshot.memo(`${aspPricing.id}:${version}:${hcpcs}`, () =>
    snapshot.all<AspPaymentLimit>(`SELECT * FROM ${aspPricing.id} WHERE version = $1 AND hcpcs_code = $2`, [version, hcpcs]),
  );
}
