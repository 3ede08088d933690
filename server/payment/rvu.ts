import { modifiersWhere } from '../../lib/vocabulary/modifiers.js';
import type { YearFigures } from '../../datasets/medicare_yearly_figures/queries.js';
import { findRvuRows, getRvu, releaseFactorsOn, type RvuRow } from '../../datasets/mpfs_rvu/queries.js';
import { lookupOppsCap } from '../../datasets/opps_cap/queries.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
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
export const RVU_PRICING_MODIFIERS = modifiersWhere('rvu_row');

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

/** The year whose factors the spec's rule 1 names ("2026 constants"): its figures say so in their source. */
const SPEC_RULE_1_YEAR = 2026;

/**
 * The conversion factor of the service's year (CMS pays a 2025 service with the CY2025 factor):
 * the CONV FACTOR column of that year's RVU release (QPP and non-QPP where the year has both);
 * else the year's figure of `medicare_yearly_figures` (a release that prints no factor: the
 * CY2026 factors of the PFS final rule, the spec's rule 1); else a release of another year lends
 * its factor, with a warning (its RVUs priced the line too). Null when none of them has one.
 */
export function conversionFactorOf(row: RvuRow | null, source: string, year: number, qpp: boolean, figures: YearFigures | null, trace: Trace): { value: string; source: string } | null {
  const variant = qpp ? 'QPP' : 'non-QPP';
  if (row && row.year === year) {
    const file = qpp ? (row.conv_factor_qpp ?? (row.cf_variant === 'all' ? row.conv_factor : null)) : row.cf_variant === 'QPP' ? null : row.conv_factor;
    if (file !== null) {
      return { value: String(file), source: `CONV FACTOR of ${source}${row.cf_variant === 'all' ? ` (CY${year} has one factor for QPP and non-QPP)` : ` (${variant} file)`}` };
    }
  }
  const figure = figures?.figure(qpp ? 'conversion_factor_qpp' : 'conversion_factor_non_qpp');
  if (figure) {
    const why = !row ? '' : row.year === year ? `; ${source} carries no ${variant} factor` : `; no CY${year} RVU release is loaded (RVUs from ${source})`;
    const what = year === SPEC_RULE_1_YEAR ? `spec rule 1: CY${year} ${variant} constant` : `medicare_yearly_figures ${figures!.version}: CY${year} ${variant} conversion factor (${figure.citation.title})`;
    return { value: figure.value.toString(), source: `${what}${why}` };
  }
  if (row?.conv_factor) {
    trace.fallback(`no CY${year} RVU release is loaded: the CY${row.year} conversion factor ${row.conv_factor} of ${source} was used`);
    return { value: String(row.conv_factor), source: `CONV FACTOR of ${source} (CY${row.year}; no CY${year} release loaded)` };
  }
  return null;
}

/**
 * `conversionFactorOf`, and for a code without an RVU row (no physician amount rests on it) the
 * factor of the release the date selects, so the answer's `conversion_factor` is still the
 * service year's where a release of it is loaded. Zero, with a warning, when no factor is loaded.
 */
export async function conversionFactorFor(snapshot: SnapshotReader, row: RvuRow | null, source: string, date: string, qpp: boolean, figures: YearFigures | null, trace: Trace): Promise<{ value: string; source: string }> {
  const year = Number(date.slice(0, 4));
  const found = conversionFactorOf(row, source, year, qpp, figures, trace);
  if (found) return found;
  const f = await releaseFactorsOn(snapshot, date);
  const value = f ? (qpp ? f.qpp : f.non_qpp) : null;
  if (!f || value === null) {
    trace.warn(`no CY${year} ${qpp ? 'QPP' : 'non-QPP'} conversion factor is loaded (no RVU release prints one, and medicare_yearly_figures has none for CY${year})`);
    return { value: '0', source: `no CY${year} conversion factor is loaded` };
  }
  const files = snapshot.versions('mpfs_rvu').find((v) => v.version === f.version)?.source_files.map((x) => x.name).join(' + ');
  const of = `${files ? `${files} ` : ''}(mpfs_rvu ${f.version})`;
  return { value: String(value), source: f.year === year ? `CONV FACTOR of ${of}` : `CONV FACTOR of ${of} (CY${f.year}; no CY${year} release loaded)` };
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

