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

type Part = 'provider' | 'practice_location' | 'other_name';
const PARTS: Part[] = ['provider', 'practice_location', 'other_name'];

/**
 * One NPI of a version with its extra practice locations and other names, null when
 * absent; memoised per snapshot (a snapshot never changes, so neither does the answer). The query
 * names the version's own three tables, so DuckDB finds the rows through each table's index on
 * `npi` (a view over the versions would scan: 8 ms instead of 2 at a million providers); a reader
 * without attached files asks the views.
 */
export function findNpi(snapshot: SnapshotReader, version: string, npi: string): Promise<LocalNpiRecord | null> {
  const own = PARTS.map((t) => snapshot.versionTable?.(nppes.id, version, NPPES_TABLES[t].name));
  const indexed = own.every((t) => t !== undefined);
  return snapshot.memo(`${nppes.id}:npi\u0000${version}\u0000${npi}`, async () => {
    // Three point queries at once, each on its own connection (their latency is the slowest one's).
    const parts = await Promise.all(
      PARTS.map((t, i) =>
        indexed
          ? snapshot.all<{ ordinal?: number; j: string }>(`SELECT ${i ? 'ordinal, ' : ''}to_json(r)::VARCHAR AS j FROM (SELECT * EXCLUDE (version) FROM ${own[i]} WHERE npi = $1) r`, [npi])
          : snapshot.all<{ ordinal?: number; j: string }>(`SELECT ${i ? 'ordinal, ' : ''}to_json(r)::VARCHAR AS j FROM (SELECT * EXCLUDE (version) FROM ${viewName(nppes.id, NPPES_TABLES[t].name)} WHERE version = $1 AND npi = $2) r`, [version, npi]),
      ),
    );
    const [provider] = parts[0]!;
    if (!provider) return null;
    const list = <T>(i: number) => parts[i]!.sort((a, b) => a.ordinal! - b.ordinal!).map((r) => JSON.parse(r.j) as T);
    return {
      provider: fromStored(NPPES_TABLES.provider, JSON.parse(provider.j) as Record<string, unknown>) as ProviderRow,
      practice_locations: list<PracticeLocationRow>(1),
      other_names: list<OtherNameRow>(2),
    };
  });
}
/** One NPI read through the views over every version (what `findNpi` answered before the indexes; tests hold the two equal). */
export async function findNpiInTables(snapshot: SnapshotReader, version: string, npi: string): Promise<LocalNpiRecord | null> {
  const view = (t: keyof typeof NPPES_TABLES) => viewName(nppes.id, NPPES_TABLES[t].name);
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
}
