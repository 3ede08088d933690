import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion } from '../_shared/versions.js';
import { icd10cm, undotted, type Icd10cmRow } from './dataset.js';

/**
 * The ICD-10-CM release for a date (fiscal years start October 1), its codes by undotted code.
 * `seed` is true for a version `rcm seed` loaded: an excerpt, so a code it lacks is unknown, not
 * invalid.
 */
export async function icd10Index(snapshot: SnapshotReader, date?: string): Promise<{ version: string; codes: Map<string, Icd10cmRow>; covered: boolean; seed: boolean; warning?: string } | null> {
  const pick = selectVersion(icd10cm.id, snapshot.versions(icd10cm.id), { rule: 'effective', date });
  if (!pick) return null;
  const version = pick.version.version;
  const codes = await snapshot.memo(
    `${icd10cm.id}:index:${version}`,
    async () => {
      const rows = await snapshot.all<Icd10cmRow>(`SELECT * EXCLUDE (version) FROM ${icd10cm.id} WHERE version = $1`, [version]);
      return new Map(rows.map((r) => [r.code, r]));
    },
    { pin: true },
  );
  return { version, codes, covered: pick.covered, seed: pick.version.seed === true, ...(pick.warning ? { warning: pick.warning } : {}) };
}

/** A diagnosis as submitted (`m54.50`, `M5450`) looked up in an index. */
export const findDx = (codes: Map<string, Icd10cmRow>, dx: string): Icd10cmRow | undefined => codes.get(undotted(dx));
