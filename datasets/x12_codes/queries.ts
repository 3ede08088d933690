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

export const X12_STATUSES = ['active', 'deactivated', 'not_yet_active'] as const;

export interface X12CodeStatus {
  status: (typeof X12_STATUSES)[number];
  /** The status in words, with the date that decides it. */
  note: string;
}

/**
 * What a code's dates say about a remittance dated `asOf`. The lists keep a deactivated code with
 * its stop date (CARC 42 "Stop: 06/01/2007"): used before that date it was valid and is explained,
 * not called invalid; on or after it the payer should not have used it. A code whose start date is
 * after `asOf` did not exist yet. A code without a recorded start date (the newest codes, and every
 * group code) is in use unless stopped.
 */
export function x12StatusOn(r: Pick<X12CodeRow, 'list' | 'code' | 'start_date' | 'stop_date'>, asOf: string): X12CodeStatus {
  const name = `${r.list === 'group' ? 'group code' : r.list.toUpperCase()} ${r.code}`;
  if (r.stop_date !== null && asOf >= r.stop_date) {
    return { status: 'deactivated', note: `${name} was deactivated on ${r.stop_date} (its stop date): a remittance dated ${asOf} should not use it; it was valid from ${r.start_date ?? 'an unrecorded start date'} until then` };
  }
  if (r.start_date !== null && asOf < r.start_date) {
    return { status: 'not_yet_active', note: `${name} starts on ${r.start_date}, after ${asOf}: it did not exist on that date` };
  }
  const until = r.stop_date ? `; deactivated from ${r.stop_date}` : '';
  return { status: 'active', note: `${name} is in use on ${asOf} (start ${r.start_date ?? 'not recorded'}${until})` };
}
