import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import { pickVersion } from '../_shared/versions.js';
import { allAsJson } from '../../warehouse/snapshot.js';
import type { VersionUsed } from '../_ncci_mue/queries.js';
import { ncciAoc, type AocRow } from './dataset.js';

/** One loaded AOC version indexed both ways: by add-on code and by primary code. */
export interface AocIndex {
  byAddon: Map<string, AocRow[]>;
  byPrimary: Map<string, AocRow[]>;
}

function push(map: Map<string, AocRow[]>, key: string, row: AocRow): void {
  const list = map.get(key);
  if (list) list.push(row);
  else map.set(key, [row]);
}

/** Builds (once per snapshot) the two-way index of one AOC version. */
export function aocIndex(snapshot: SnapshotReader, version: string): Promise<AocIndex> {
  return snapshot.memo(`aoc-index:${version}`, async () => {
    const rows = await allAsJson<AocRow>(
      snapshot,
      `SELECT * EXCLUDE (version) FROM ${quoteIdent(ncciAoc.id)} WHERE version = $1`,
      [version],
    );
    // Sorted here: an aggregate over an ordered subquery does not promise to keep the order.
    const k = (r: AocRow) => `${r.addon_code}\u0000${r.primary_code}\u0000${r.aoc_edit_eff_dt}`;
    rows.sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
    const idx: AocIndex = { byAddon: new Map(), byPrimary: new Map() };
    for (const r of rows) {
      push(idx.byAddon, r.addon_code, r);
      push(idx.byPrimary, r.primary_code, r);
    }
    return idx;
  }, { pin: true });
}

/**
 * True when the pair edit applies on `dateOfService`: effective on or before it and not deleted
 * before it. CMS deletion dates are the last date the edit applies (quarter ends such as
 * `20251231`), so a date of service equal to the deletion date still applies. The add-on's and
 * primary's own effective/deletion dates bound it the same way. Without a date: edits with no
 * deletion date (active as published).
 */
export function aocApplies(r: AocRow, dateOfService?: string): boolean {
  if (!dateOfService) return !r.aoc_edit_del_dt && !r.addon_del_dt && !r.primary_del_dt;
  const after = (eff: string | null) => !eff || eff <= dateOfService;
  const before = (del: string | null) => !del || dateOfService <= del;
  return (
    after(r.aoc_edit_eff_dt) &&
    before(r.aoc_edit_del_dt) &&
    after(r.addon_eff_dt) &&
    before(r.addon_del_dt) &&
    after(r.primary_eff_dt) &&
    before(r.primary_del_dt)
  );
}

/** AOC answer for one code: its primaries (as an add-on) and the add-ons that list it (as a primary). */
export interface AocFindResult {
  as_addon: AocRow[];
  as_primary: AocRow[];
  used: VersionUsed;
}

/**
 * AOC edits for `code` on a date of service: when the code is an add-on, its primary codes; when it
 * is a primary code, the add-ons that list it. Both lists come from the version whose quarter
 * contains the date (nearest one flagged `covered: false`; with `today` and no date, today's
 * quarter, else the newest, flagged), filtered to edits in force that day (without a date, the
 * active edits). Undefined when ncci_aoc is not loaded.
 */
export async function lookupAocEdits(snapshot: SnapshotReader, code: string, dateOfService?: string, today?: string): Promise<AocFindResult | undefined> {
  const on = await aocEditsOn(snapshot, dateOfService, today);
  return on && { as_addon: on.asAddon(code), as_primary: on.asPrimary(code), used: on.used };
}

/**
 * The AOC edits in force on a date of service, from the version whose quarter contains it
 * (nearest one flagged `covered: false`), indexed once per snapshot: a claim asks it once per date
 * and then each code. Undefined when ncci_aoc is not loaded.
 */
export async function aocEditsOn(
  snapshot: SnapshotReader,
  dateOfService?: string,
  today?: string,
): Promise<{ used: VersionUsed; asAddon(code: string): AocRow[]; asPrimary(code: string): AocRow[] } | undefined> {
  const choice = pickVersion(ncciAoc.id, snapshot.versions(ncciAoc.id), 'quarter', dateOfService, today);
  if (!choice) return undefined;
  const v = choice.version;
  const idx = await aocIndex(snapshot, v.version);
  const pick = (rows: AocRow[] | undefined) => (rows ?? []).filter((r) => aocApplies(r, dateOfService));
  return {
    used: {
      dataset: ncciAoc.id,
      version: v.version,
      effective_date: v.effective_date,
      loaded_at: v.loaded_at,
      source_file: v.source_files[0]?.name ?? null,
      covered: choice.covered,
      ...(choice.warning ? { warning: choice.warning } : {}),
    },
    asAddon: (code) => pick(idx.byAddon.get(code)),
    asPrimary: (code) => pick(idx.byPrimary.get(code)),
  };
}
