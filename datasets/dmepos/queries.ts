import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { dmepos, type DmeposRow } from './dataset.js';
import { versionLabel } from '../_shared/versions.js';
import { knownCodes } from '../_shared/codes.js';

/** A stored DMEPOS row plus the version label it was loaded under. */
export type DmeposFee = DmeposRow & { version: string };

/**
 * The loaded version to answer from: the latest one whose effective date falls in `year`, or the
 * latest overall when no year is asked. DMEPOS publishes several versions a year (January, April,
 * July, October), so "year 2025" means the newest 2025 release loaded.
 */
export function dmeposVersionFor(snapshot: SnapshotReader, year?: number): string | undefined {
  return versionLabel(snapshot, dmepos.id, { rule: 'effective', year });
}

/** Filters of `GET /v1/fee-schedules/dme/{code}` (state already upper-cased, limit 1-200). */
export interface DmeFeeQuery {
  state?: string;
  year?: number;
  /** The loaded version to read (the route's date rule chose it); else the one of `year`. */
  version?: string;
  limit: number;
}

/**
 * DMEPOS fee rows of a HCPCS code in one version (filtered by state), ordered by state and
 * modifiers, with the count before `limit`. `known` says whether the code is in any loaded
 * version, so the route can tell "unknown code" (404) from "no row for this filter" (empty list).
 */
export function findDmeFees(
  snapshot: SnapshotReader,
  code: string,
  q: DmeFeeQuery,
): Promise<{ version: string | undefined; rows: DmeposFee[]; total_count: number; known: boolean }> {
  return snapshot.memo(`${dmepos.id}:fees:${code}:${q.state ?? ''}:${q.version !== undefined ? `v${q.version}` : `y${q.year ?? ''}`}:${q.limit}`, async () => {
    if (!snapshot.has(dmepos.id)) return { version: undefined, rows: [], total_count: 0, known: false };
    const known = (await snapshot.all(`SELECT 1 FROM ${dmepos.id} WHERE hcpcs_code = $1 LIMIT 1`, [code])).length > 0;
    const version = q.version ?? dmeposVersionFor(snapshot, q.year);
    if (!known || !version) return { version, rows: [], total_count: 0, known };
    const where = `version = $1 AND hcpcs_code = $2${q.state ? ' AND state = $3' : ''}`;
    const params = q.state ? [version, code, q.state] : [version, code];
    const total = (await snapshot.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${dmepos.id} WHERE ${where}`, params))[0]!.n;
    const rows = await snapshot.all<DmeposFee>(
      `SELECT * FROM ${dmepos.id} WHERE ${where} ORDER BY state, modifier, modifier2 LIMIT ${Math.trunc(q.limit)}`,
      params,
    );
    return { version, rows, total_count: total, known };
  });
}

/** Splits `NU`, `NU-KE`, `NU KE`, `NUKE` into the file's Mod/Mod2 pair. */
export function toModifierPair(modifier?: string): [string, string] | undefined {
  if (modifier === undefined || modifier.trim() === '') return undefined;
  const m = /^([A-Z0-9]{2})(?:[\s,-]*([A-Z0-9]{2}))?$/.exec(modifier.trim().toUpperCase());
  return m ? [m[1]!, m[2] ?? ''] : undefined;
}

/**
 * The fee row of a claim line with these modifiers among a code's rows in one state. The file
 * keys a fee by code, modifier and second modifier ("a fee schedule amount ... for each unique
 * combination of procedure code, modifier code (where applicable), and state"; the second modifier
 * "when 2 modifiers apply": DMEREAD 2025, Attachment A-1): the row whose modifiers are all on the
 * line and the most of them (A4636-NU-KE is the NU-KE row, 4.84 rural in CA, not the NU row's
 * 4.47). Without modifiers: the row without any, else the purchase-new (`NU`) row, else the only
 * row. Undefined when no row's modifiers are on the line, or two rows tie (NU and RR on one line).
 */
export function chooseDmeRow<R extends Pick<DmeposRow, 'modifier' | 'modifier2'>>(rows: readonly R[], modifiers: readonly string[]): R | undefined {
  if (modifiers.length === 0) {
    return rows.find((r) => r.modifier === '' && r.modifier2 === '') ?? rows.find((r) => r.modifier === 'NU' && r.modifier2 === '') ?? (rows.length === 1 ? rows[0] : undefined);
  }
  const on = new Set(modifiers);
  const keyed = (r: R) => [r.modifier, r.modifier2].filter(Boolean);
  const fits = rows.filter((r) => keyed(r).length > 0 && keyed(r).every((m) => on.has(m)));
  const most = Math.max(0, ...fits.map((r) => keyed(r).length));
  const best = fits.filter((r) => keyed(r).length === most);
  return best.length === 1 ? best[0] : undefined;
}

/**
 * The DMEPOS fee rows that apply to a HCPCS code in a state (latest loaded version), for payment
 * composition: with a modifier pair as text (`NU`, `RR`, `NU-KE`) the exact Mod/Mod2 row; with a
 * claim line's modifiers, the row `chooseDmeRow` picks; without any, the row without modifiers,
 * else the purchase-new (`NU`) row, else the only row. Empty when none applies (an ambiguous code
 * without modifier finds nothing rather than a guessed rental or purchase fee).
 */
export async function findDmeRates(snapshot: SnapshotReader, hcpcs: string, state: string, modifier?: string | readonly string[]): Promise<DmeposFee[]> {
  const version = dmeposVersionFor(snapshot);
  if (!version) return [];
  const rows = await snapshot.memo(`${dmepos.id}:rate:${version}:${hcpcs}:${state}`, () =>
    snapshot.all<DmeposFee>(`SELECT * FROM ${dmepos.id} WHERE version = $1 AND hcpcs_code = $2 AND state = $3 ORDER BY modifier, modifier2`, [
      version,
      hcpcs,
      state,
    ]),
  );
  if (typeof modifier !== 'string') {
    const hit = chooseDmeRow(rows, modifier ?? []);
    return hit ? [hit] : [];
  }
  const pair = toModifierPair(modifier);
  if (modifier.trim() !== '' && !pair) return [];
  const hit = pair ? rows.find((r) => r.modifier === pair[0] && r.modifier2 === pair[1]) : chooseDmeRow(rows, []);
  return hit ? [hit] : [];
}

/** True when the code is in any loaded DMEPOS release (any state, any modifier). */
export async function isDmeCode(snapshot: SnapshotReader, code: string): Promise<boolean> {
  return (await knownCodes(snapshot, dmepos.id)).has(code);
}
