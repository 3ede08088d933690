import { selectVersion } from '../_shared/versions.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { x12Codes, type X12CodeRow } from './dataset.js';

export interface X12Index {
  version: string;
  /** `carc:50`, `rarc:N290`, `group:CO` -> row. */
  byKey: Map<string, X12CodeRow>;
  count: number;
}

/** The code lists of the latest loaded release, indexed once per snapshot (a few thousand rows). */
export function x12Index(snapshot: SnapshotReader): Promise<X12Index> {
  const pick = selectVersion(x12Codes.id, snapshot.versions(x12Codes.id), { rule: 'effective' });
  if (!pick) return Promise.resolve({ version: '', byKey: new Map(), count: 0 });
  const version = pick.version.version;
  return snapshot.memo(
    `${x12Codes.id}:index:${version}`,
    async () => {
      const rows = await snapshot.all<X12CodeRow>(`SELECT * EXCLUDE (version) FROM ${x12Codes.id} WHERE version = $1`, [version]);
      return { version, byKey: new Map(rows.map((r) => [`${r.list}:${r.code}`, r])), count: rows.length };
    },
    { pin: true },
  );
}
