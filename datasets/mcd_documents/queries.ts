import { viewName } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { fromStored } from '../_shared/table.js';
import { versionLabel } from '../_shared/versions.js';
import { mcdDocuments, type McdDocumentRow } from './dataset.js';

/** The listing in force (latest loaded release), indexed once per snapshot. */
export interface McdListing {
  version: string;
  /** Display id -> the document's versions in the listing, oldest first (a future version sits beside the current one). */
  byDisplayId: Map<string, McdDocumentRow[]>;
}

const readVersion = async (snapshot: SnapshotReader, version: string): Promise<McdDocumentRow[]> =>
  (await snapshot.all<Record<string, unknown>>(`SELECT * EXCLUDE (version) FROM "${viewName(mcdDocuments.id, mcdDocuments.tables[0]!.name)}" WHERE version = $1`, [version])).map(
    (r) => fromStored(mcdDocuments.tables[0]!, r) as McdDocumentRow,
  );

/** The latest loaded listing, indexed by display id; null when mcd_documents is not loaded. */
export async function mcdListing(snapshot: SnapshotReader): Promise<McdListing | null> {
  const version = versionLabel(snapshot, mcdDocuments.id);
  return version ? listingOf(snapshot, version) : null;
}

/** One loaded release of the listing, indexed by display id (a few thousand rows; kept for the snapshot's life). */
export function listingOf(snapshot: SnapshotReader, version: string): Promise<McdListing> {
  return snapshot.memo(
    `${mcdDocuments.id}:listing:${version}`,
    async () => {
      const byDisplayId = new Map<string, McdDocumentRow[]>();
      for (const r of await readVersion(snapshot, version)) {
        const l = byDisplayId.get(r.document_display_id);
        if (l) l.push(r);
        else byDisplayId.set(r.document_display_id, [r]);
      }
      for (const l of byDisplayId.values()) l.sort((a, b) => a.document_version - b.document_version);
      return { version, byDisplayId };
    },
    { pin: true },
  );
}

/**
 * The version of a document in force on `date`: the latest whose effective date is on or before
 * it; when every listed version is still to come, the earliest (a new document announced ahead).
 */
export function versionInForce(versions: McdDocumentRow[], date: string): McdDocumentRow {
  return versions.filter((v) => (v.effective_date ?? '') <= date).at(-1) ?? versions[0]!;
}
