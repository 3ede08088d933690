import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { versionLabel } from '../_shared/versions.js';
import { zipLocality, type ZipLocalityRow } from './dataset.js';

/** A ZIP's locality and rural flag from the ZIP5 file, with the version used. */
export interface ZipLocalityMatch extends ZipLocalityRow {
  /** The zip_locality version label the answer came from, e.g. `2025Q4`. */
  version: string;
}

/** First five digits of `94143`, `94143-0296` or `941430296`; undefined when it is not a ZIP. */
export function toZip5(zip: string): string | undefined {
  const m = /^(\d{5})(?:-?\d{4})?$/.exec(zip.trim());
  return m ? m[1] : undefined;
}

/**
 * The Medicare carrier/pricing locality of a ZIP code (the primary CMS rule: a service is priced
 * in the locality of the ZIP where it is furnished), from the latest ZIP5 file loaded. Returns an
 * empty list when zip_locality is not loaded, the text is not a ZIP, or the ZIP is not in the file;
 * at most one row otherwise (zip5 is the key).
 */
export async function findLocalityForZip(snapshot: SnapshotReader, zip: string): Promise<ZipLocalityMatch[]> {
  const version = versionLabel(snapshot, zipLocality.id);
  const zip5 = toZip5(zip);
  if (!version || !zip5) return [];
  return snapshot.memo(`${zipLocality.id}:zip:${version}:${zip5}`, async () => {
    const rows = await snapshot.all<ZipLocalityRow>(
      `SELECT zip5, state, usps_state, carrier, pricing_locality, locality, rural_indicator, is_rural, lab_cb_locality,
              rural_indicator2, plus_four, part_b_payment_indicator, year_quarter
         FROM ${zipLocality.id} WHERE version = $1 AND zip5 = $2`,
      [version, zip5],
    );
    return rows.map((r) => ({ ...r, version }));
  });
}
