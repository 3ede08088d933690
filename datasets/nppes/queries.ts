import { viewName } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { fromStored } from '../_shared/table.js';
import { selectVersion } from '../_shared/versions.js';
import { nppes } from './dataset.js';
import { NPPES_TABLES, type OtherNameRow, type PracticeLocationRow, type ProviderRow } from './schema.js';

/** The NPPES version that answers: the newest loaded (the registry is a current listing). */
export function nppesVersion(snapshot: SnapshotReader): string | null {
  return selectVersion(nppes.id, snapshot.versions(nppes.id), { rule: 'effective' })?.version.version ?? null;
}

export interface LocalNpiRecord {
  provider: ProviderRow;
  practice_locations: PracticeLocationRow[];
  other_names: OtherNameRow[];
}

/**
 * One NPI of a version with its extra practice locations and other names (one query), null when
 * absent; memoised per snapshot (a snapshot never changes, so neither does the answer).
 */
export function findNpi(snapshot: SnapshotReader, version: string, npi: string): Promise<LocalNpiRecord | null> {
  const view = (t: keyof typeof NPPES_TABLES) => viewName(nppes.id, NPPES_TABLES[t].name);
  return snapshot.memo(`${nppes.id}:npi\u0000${version}\u0000${npi}`, async () => {
    const [p] = await snapshot.all<Record<string, unknown>>(
      'SELECT p.* EXCLUDE (version), ' +
        `(SELECT to_json(list(l ORDER BY l.ordinal))::VARCHAR FROM (SELECT * EXCLUDE (version) FROM ${view('practice_location')} WHERE version = $1 AND npi = $2) l) AS _pl, ` +
        `(SELECT to_json(list(o ORDER BY o.ordinal))::VARCHAR FROM (SELECT * EXCLUDE (version) FROM ${view('other_name')} WHERE version = $1 AND npi = $2) o) AS _on ` +
        `FROM ${view('provider')} p WHERE p.version = $1 AND p.npi = $2`,
      [version, npi],
    );
    if (!p) return null;
    const { _pl, _on, ...row } = p;
    return {
      provider: fromStored(NPPES_TABLES.provider, row) as ProviderRow,
      practice_locations: typeof _pl === 'string' ? (JSON.parse(_pl) as PracticeLocationRow[]) : [],
      other_names: typeof _on === 'string' ? (JSON.parse(_on) as OtherNameRow[]) : [],
    };
  });
}
