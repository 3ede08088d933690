import type { AocRow } from '../../datasets/ncci_aoc/dataset.js';
import type { PtpLookup } from '../../datasets/_ncci_ptp/queries.js';
import { claimContext } from './edits/edit.js';
import { CLAIM_EDITS } from './edits/index.js';
import type { ClaimFinding, ClaimLine } from './schemas.js';

// What the routes, the remittance links and the tests read of the claim edits, from their units.
export { MUE_ADJUDICATION_CITATION, mueWhenExceeded } from './edits/mue.js';
export { medicareFindings } from './edits/payable_line.js';
export { bypassRule } from './edits/ptp.js';
export { isEmCode, NCCI_POLICY_MANUAL } from './modifiers.js';

/**
 * Claim-level NCCI check: the claim edits of `edits/` (codes no file knows, what Medicare pays for
 * each line, PTP for every pair of lines, MUE per line and per date of service, add-on codes
 * against their primaries), applied in the order of `CLAIM_EDITS`. Pure over injected lookups, so
 * every edit is testable without a snapshot; the route supplies lookups over the loaded NCCI files.
 *
 * Modifier rules follow the CMS "National Correct Coding Initiative Policy Manual for Medicare
 * Services", Chapter I, section E (Modifiers and Modifier Indicators), and the MUE and add-on
 * code pages of the CMS NCCI site.
 */

export interface MueFound {
  dataset: string;
  version: string;
  row: { mue_value: number; mue_adj_ind: 1 | 2 | 3 | null; mue_adj_ind_label: string | null; mue_rationale: string | null } | null;
}

export interface AocFound {
  dataset: string;
  version: string;
  /** The code's edits as an add-on, in force on the date. */
  as_addon: AocRow[];
}

/**
 * What the loaded fee schedules say about a code on one date, for a Medicare claim: the PFS status
 * code of its unmodified RVU row in the release of the date's year, whether that release lacks a
 * code another release has (deleted, or not yet effective), its OPPS status indicator, and whether
 * the CLFS, DMEPOS or ASP files pay it.
 */
export interface MedicareCodeFacts {
  /** The RVU release that answers the date (`year` rule; null: mpfs_rvu is not loaded). */
  rvu_version: string | null;
  /** PFS status code of the code's unmodified row in that release (null: no row there). */
  status_code: string | null;
  /** The code is absent from that release but in an earlier one (deleted) or only in a later one. */
  outside_release: { state: 'deleted' | 'not_yet_effective'; other_version: string } | null;
  /** Addendum B row for the date's year (null: not in Addendum B, or not loaded). */
  opps: { version: string; status_indicator: string; payment_rate: number | null } | null;
  /** Paid under the clinical laboratory or DMEPOS fee schedule, or the ASP drug payment limits. */
  clfs: boolean;
  dmepos: boolean;
  asp: boolean;
}

/** One file's version pick for a date: `covered` false when no loaded quarter contains the date. */
export interface FileCoverage {
  dataset: string;
  version: string;
  covered: boolean;
  /** Names the date and the version used instead (from `selectVersion`). */
  warning?: string;
}

/** What the checker reads on one date of service, every answer synchronous. */
export interface DayLookups {
  /**
   * The version of each file the day's checks read and whether it covers the date. A file answered
   * from a version that does not cover the date makes the whole check degraded (one rule with the
   * PTP, MUE and add-on routes).
   */
  coverage?: FileCoverage[];
  /** What Medicare pays for a code on the date; absent when the claim is not a Medicare claim. */
  medicare?(code: string): MedicareCodeFacts;
  /** False when no loaded file knows the code for the date (its edits cannot be checked). */
  known(code: string): boolean;
  /** The PTP edit of a pair, in CMS column order (190 pairs for 20 lines). */
  ptp(a: string, b: string): PtpLookup;
  /** Null: no MUE table is loaded for the setting. */
  mue(code: string): MueFound | null;
  /** Null: the add-on code file is not loaded. */
  aoc(code: string): AocFound | null;
}

/**
 * What the checker reads: per date of service, everything the claim's codes need is loaded once
 * (a few awaits per date, not three per line: those cost a 20-line claim about 55 us), then each
 * code and pair is answered from memory.
 */
export interface ClaimLookups {
  day(codes: string[], dos: string): Promise<DayLookups>;
}

export interface ClaimCheck {
  findings: ClaimFinding[];
  /** dataset -> version label of every NCCI file consulted. */
  versions: Record<string, string>;
  warnings: string[];
  /** True when a file was read from a version that does not cover a line's date of service. */
  degraded: boolean;
  /** The files read from such a version (the claim check decides nothing by them). */
  not_in_force: string[];
  /** dataset -> version label of every file the day loads read (NCCI files and, for Medicare, the fee schedules). */
  read: Record<string, string>;
  pairs_checked: number;
}

/** Checks a claim's lines against the claim edits, in their order, over the lookups of each date of service. */
export async function checkClaim(lines: ClaimLine[], lk: ClaimLookups, setting: 'prac' | 'hosp' = 'prac'): Promise<ClaimCheck> {
  // What each date of service needs, loaded once per date.
  const days = new Map<string, DayLookups>();
  for (const dos of new Set(lines.map((l) => l.date_of_service))) {
    days.set(dos, await lk.day([...new Set(lines.filter((l) => l.date_of_service === dos).map((l) => l.code))], dos));
  }
  const c = claimContext(lines, setting, (l) => days.get(l.date_of_service)!);
  // A file read from a version that does not cover a line's date makes the whole check degraded.
  let degraded = false;
  const notInForce = new Set<string>();
  const read: Record<string, string> = {};
  for (const day of days.values()) {
    for (const v of day.coverage ?? []) {
      read[v.dataset] = v.version;
      if (v.covered) continue;
      degraded = true;
      notInForce.add(v.dataset);
      if (v.warning) c.warnings.add(v.warning);
    }
  }
  for (const edit of CLAIM_EDITS) edit.check(c);
  return { findings: c.findings, versions: c.versions, warnings: [...c.warnings], degraded, not_in_force: [...notInForce], read, pairs_checked: c.pairs_checked };
}
