import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import { versionLabel } from '../_shared/versions.js';
import { rxnorm, RXNORM_OPEN_SAB, type RxnormRow } from './dataset.js';

/** A stored RXNCONSO atom plus the version label it was loaded under. */
export type RxnormEntry = RxnormRow & { version: string };

/**
 * The searchable atoms of the latest loaded RxNorm release: English, not suppressed (SUPPRESS
 * N), and only SAB=RXNORM unless `licensed` (the operator holds a UMLS licence, so the sources
 * RxNorm carries under its terms may be answered too). Null when rxnorm is not loaded.
 */
export async function rxnormAtoms(snapshot: SnapshotReader, licensed: boolean): Promise<{ version: string; atoms: RxnormEntry[] } | null> {
  const version = versionLabel(snapshot, rxnorm.id);
  if (!version) return null;
  const atoms = await snapshot.all<RxnormEntry>(
    `SELECT * FROM ${quoteIdent(rxnorm.id)} WHERE version = $1 AND lat = 'ENG' AND suppress = 'N'${licensed ? '' : ` AND sab = '${RXNORM_OPEN_SAB}'`} ORDER BY rxaui`,
    [version],
  );
  return { version, atoms };
}
