import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { aspCrosswalk, type AspCrosswalkRow } from './dataset.js';

/** A stored crosswalk row plus the quarter label it was loaded under. */
export type NdcHcpcsLink = AspCrosswalkRow & { version: string };

function latest(snapshot: SnapshotReader): string | undefined {
  return snapshot.versions(aspCrosswalk.id).at(-1)?.version;
}

/** NDC packages billed under a HCPCS code (latest loaded crosswalk), ordered by NDC. */
export async function findNdcsForHcpcs(snapshot: SnapshotReader, hcpcs: string): Promise<NdcHcpcsLink[]> {
  const version = latest(snapshot);
  if (!version) return [];
  return snapshot.memo(`${aspCrosswalk.id}:hcpcs:${version}:${hcpcs}`, () =>
    snapshot.all<NdcHcpcsLink>(`SELECT * FROM ${aspCrosswalk.id} WHERE version = $1 AND hcpcs_code = $2 ORDER BY ndc`, [version, hcpcs]),
  );
}

/** HCPCS codes an 11-digit NDC (no dashes) is billed under (latest loaded crosswalk). */
export async function findHcpcsForNdc(snapshot: SnapshotReader, ndc11: string): Promise<NdcHcpcsLink[]> {
  const version = latest(snapshot);
  if (!version) return [];
  return snapshot.memo(`${aspCrosswalk.id}:ndc:${version}:${ndc11}`, () =>
    snapshot.all<NdcHcpcsLink>(`SELECT * FROM ${aspCrosswalk.id} WHERE version = $1 AND ndc = $2 ORDER BY hcpcs_code`, [version, ndc11]),
  );
}
