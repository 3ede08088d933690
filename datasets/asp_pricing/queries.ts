import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { AspPricingRow } from './dataset.js';

/** A stored ASP pricing row plus the quarter label (`2025Q1`) it was loaded under. */
export type AspPaymentLimit = AspPricingRow & { version: string };

/**
 * The Part B payment limit per billing unit of a drug HCPCS from the latest loaded ASP quarter
 * (`payment_limit` null where CMS prints `N/A`); null when the code is not on the file.
 */
export async function getAspPaymentLimit(snapshot: SnapshotReader, hcpcs: string): Promise<AspPaymentLimit | null> {
  const version = snapshot.versions('asp_pricing').at(-1)?.version;
  if (!version) return null;
  return snapshot.memo(`asp_pricing:${version}:${hcpcs}`, async () => {
    const rows = await snapshot.all<AspPaymentLimit>(`SELECT * FROM asp_pricing WHERE version = $1 AND hcpcs_code = $2`, [version, hcpcs]);
    return rows[0] ?? null;
  });
}
