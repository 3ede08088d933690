import { viewName } from '../../warehouse/manifest.js';
import { RecordFile, RECORDS_SUFFIX } from '../../lib/sidecar/record.js';
import { sidecarFallback, versionSidecar, type SnapshotReader } from '../../warehouse/snapshot.js';
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
 * absent; memoised per snapshot (a snapshot never changes, so neither does the answer). Read from
 * the version's record sidecar (`datasets/storage.ts`) where it has one; else the query names the
 * version's own three tables, so DuckDB finds the rows through each table's index on `npi` (a
 * view over the versions would scan: 8 ms instead of 2 at a million providers); a reader without
 * attached files asks the views.
 */
export function findNpi(snapshot: SnapshotReader, version: string, npi: string): Promise<LocalNpiRecord | null> {
  const own = PARTS.map((t) => snapshot.versionTable?.(nppes.id, version, NPPES_TABLES[t].name));
  const indexed = own.every((t) => t !== undefined);
  return snapshot.memo(`${nppes.id}:npi\u0000${version}\u0000${npi}`, async () => {
    // The version's record sidecar where it has one (a block read and inflated: no DuckDB query);
    // a block that cannot be read (the file damaged after it was written) leaves it to DuckDB.
    const wellFormed = /^\d{10}$/.test(npi);
    const records = wellFormed ? await versionSidecar(snapshot, nppes.id, version, RECORDS_SUFFIX, RecordFile.open) : null;
    let text: string | null | undefined;
    try {
      text = records?.get(Number(npi));
      if (!records && wellFormed) sidecarFallback(snapshot, nppes.id, 'records', 'missing');
    } catch {
      text = undefined;
      sidecarFallback(snapshot, nppes.id, 'records', 'damaged');
    }
    if (text === null) return null;
    if (text !== undefined) {
      const rec = JSON.parse(text) as LocalNpiRecord;
      return { ...rec, provider: fromStored(NPPES_TABLES.provider, rec.provider as unknown as Record<string, unknown>) as ProviderRow };
    }
    // Three point queries at once, each on its own connection (their latency is the slowest one's).
    const parts = await Promise.all(
      PARTS.map((t, i) => {
        const [from, params] = indexed ? [`${own[i]} WHERE npi = $1`, [npi]] : [`${viewName(nppes.id, NPPES_TABLES[t].name)} WHERE npi = $1 AND version = $2`, [npi, version]];
        return snapshot.all<{ ordinal?: number; j: string }>(`SELECT ${i ? 'ordinal, ' : ''}to_json(r)::VARCHAR AS j FROM (SELECT * EXCLUDE (version) FROM ${from}) r`, params);
      }),
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

