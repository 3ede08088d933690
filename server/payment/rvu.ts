import { findRvuRows, getRvu, type RvuRow } from '../../datasets/mpfs_rvu/queries.js';
import { lookupOppsCap } from '../../datasets/opps_cap/queries.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { conversionFactor } from './calculate.js';
import type { RvuInput } from './inputs.js';

/**
 * The physician fee schedule's side of a line: the PPRRVU row a modifier selects, the conversion
 * factor of the service's year and the OPPS cap of the code, each read through the dataset query
 * functions and recorded on the trace.
 */

/**
 * Modifiers that select a different PPRRVU row (professional/technical component, reduced or
 * discontinued service). Any other modifier (25, 59, GT, ...) does not change the RVUs.
 */
export const RVU_PRICING_MODIFIERS: ReadonlySet<string> = new Set(['26', 'TC', '53']);

/** The year of a `YYYY-MM-DD` date. */
export const yearOf = (date?: string | null) => (date ? Number(date.slice(0, 4)) : undefined);

/** The composition's view of an RVU row, naming the release and files it came from. */
export function toRvuInput(row: RvuRow, snapshot: SnapshotReader): RvuInput {
  const v = snapshot.versions('mpfs_rvu').find((x) => x.version === row.version);
  const files = v?.source_files.map((f) => f.name).join(' + ') ?? '';
  return {
    hcpcs: row.hcpcs,
    modifier: row.modifier,
    status_code: row.status_code,
    work_rvu: row.work_rvu,
    non_fac_pe_rvu: row.non_fac_pe_rvu,
    facility_pe_rvu: row.facility_pe_rvu,
    mp_rvu: row.mp_rvu,
    non_fac_na_indicator: row.non_fac_na_indicator,
    facility_na_indicator: row.facility_na_indicator,
    pctc_indicator: row.pctc_indicator,
    mult_proc: row.mult_proc,
    bilat_surg: row.bilat_surg,
    asst_surg: row.asst_surg,
    co_surg: row.co_surg,
    team_surg: row.team_surg,
    year: row.year,
    quarter: row.quarter,
    source: files ? `${files} (mpfs_rvu ${row.version})` : `mpfs_rvu ${row.version}`,
  };
}

/**
 * The RVU row a modifier selects: the row with that modifier when the release has one; for a
 * pricing modifier (26/TC/53) the code does not carry, none (the physician block is absent); for
 * any other modifier the code's unmodified row.
 */
export async function selectRvu(snapshot: SnapshotReader, code: string, modifier: string, date: string | undefined, trace: Trace): Promise<RvuRow | null> {
  try {
    const r = await getRvu(snapshot, code, modifier, date);
    trace.fallback(...r.warnings);
    return r.row;
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    if (modifier === '') {
      // A code priced only as components (86153 exists only as 86153-26): no global amount.
      const mods = [...new Set((await findRvuRows(snapshot, code)).map((r) => r.modifier).filter(Boolean))];
      if (mods.length === 0) throw e;
      trace.warn(`physician: ${code} is on the fee schedule only with modifier${mods.length > 1 ? 's' : ''} ${mods.join(', ')}; pass modifier=${mods[0]} for its amount`);
      return null;
    }
    if (RVU_PRICING_MODIFIERS.has(modifier)) {
      trace.warn(`physician: ${e.message}`);
      return null;
    }
    const r = await getRvu(snapshot, code, '', date);
    trace.fallback(...r.warnings).warn(`modifier ${modifier} does not select a separate RVU row; the unmodified RVUs of ${code} were used`);
    return r.row;
  }
}

/**
 * The conversion factor of the service's year (issue: CMS pays a 2025 service with the CY2025
 * factor): the CONV FACTOR column of that year's RVU release (QPP and non-QPP where the year has
 * both); for CY2026 without its own file the spec's constants (rule 1). A release of another year
 * lends its factor only with a warning.
 */
export function conversionFactorFor(row: RvuRow | null, source: string, year: number, qpp: boolean, trace: Trace): { value: string; source: string } {
  const variant = qpp ? 'QPP' : 'non-QPP';
  if (row && row.year === year) {
    const file = qpp ? (row.conv_factor_qpp ?? (row.cf_variant === 'all' ? row.conv_factor : null)) : row.cf_variant === 'QPP' ? null : row.conv_factor;
    if (file !== null) {
      return { value: String(file), source: `CONV FACTOR of ${source}${row.cf_variant === 'all' ? ` (CY${year} has one factor for QPP and non-QPP)` : ` (${variant} file)`}` };
    }
  }
  if (year === 2026) {
    const why = !row ? '' : row.year === 2026 ? `; ${source} carries no ${variant} factor` : `; no CY2026 RVU release is loaded (RVUs from ${source})`;
    return { value: conversionFactor(qpp), source: `spec rule 1: CY2026 ${variant} constant${why}` };
  }
  if (row?.conv_factor) {
    trace.fallback(`no CY${year} RVU release is loaded: the CY${row.year} conversion factor ${row.conv_factor} of ${source} was used`);
    return { value: String(row.conv_factor), source: `CONV FACTOR of ${source} (CY${row.year}; no CY${year} release loaded)` };
  }
  return { value: conversionFactor(qpp), source: `spec rule 1: CY2026 ${variant} constant (no CY${year} factor loaded)` };
}

/** The OPPS cap for the physician block (DRA 2005), with warnings for status C and a missing year. */
export async function capFor(
  snapshot: SnapshotReader,
  code: string,
  modifier: string,
  locality: string,
  year: number,
  facilitySetting: boolean,
  trace: Trace,
): Promise<{ amount: number; version: string } | null> {
  const c = await lookupOppsCap(snapshot, code, modifier, locality, year);
  const what = `${code}${modifier ? `-${modifier}` : ''} in locality ${locality}`;
  if (!c) return null;
  if (c.other_year) {
    trace.fallback(`opps_cap: ${what} is capped in release ${c.other_year.version}, but no CY${year} cap file is loaded; paid without the OPPS cap`);
    return null;
  }
  if (!c.row) return null;
  trace.use('opps_cap', c.version!);
  if (c.row.procstat === 'C') {
    trace.warn(`opps_cap: ${what} is carrier priced (status C in the OPPS cap file ${c.version}): the MAC sets the amount; the cap was not applied`);
    return null;
  }
  return { amount: facilitySetting ? c.row.facility_price : c.row.non_facility_price, version: c.version! };
}

