import { ANY_PRIMARY, type AocRow } from '../../datasets/ncci_aoc/dataset.js';
import type { PtpLookup } from '../../datasets/_ncci_ptp/queries.js';
import type { AocEditUsed, ClaimFinding, ClaimLine, MueEditUsed, PtpEditUsed } from './schemas.js';
import { ownValue } from '../../lib/own.js';

/**
 * Claim-level NCCI check: PTP for every pair of lines, MUE per line and per date of service,
 * add-on codes against their primaries. Pure over injected lookups, so every rule is testable
 * without a snapshot; the route supplies lookups over the loaded NCCI files.
 *
 * Modifier rules follow the CMS "National Correct Coding Initiative Policy Manual for Medicare
 * Services", Chapter I, section E (Modifiers and Modifier Indicators), and the MUE and add-on
 * code pages of the CMS NCCI site.
 */

export const NCCI_POLICY_MANUAL = {
  title: 'CMS NCCI Policy Manual for Medicare Services, Chapter I, section E: Modifiers and Modifier Indicators',
  url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-policy-manual',
};

/** Anatomic modifiers: they bypass an indicator-1 edit only when the two lines name different sites. */
export const ANATOMIC_MODIFIERS: ReadonlySet<string> = new Set([
  'E1', 'E2', 'E3', 'E4', 'FA', 'F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7', 'F8', 'F9',
  'TA', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9', 'LT', 'RT', 'LC', 'LD', 'LM', 'RC', 'RI',
]);
/**
 * Distinct-service modifiers, each with its own meaning: 59 and its four subsets, -X{EPSU}, each
 * more specific than 59 (CMS MLN MM8863, CR 8863). On either line they bypass an indicator-1 edit.
 */
const DISTINCT_MODIFIER_MEANINGS: Readonly<Record<string, string>> = {
  '59': 'distinct procedural service',
  XE: 'separate encounter: distinct because it occurred during a separate encounter',
  XS: 'separate structure: distinct because it was performed on a separate organ or structure',
  XP: 'separate practitioner: distinct because it was performed by a different practitioner',
  XU: 'unusual non-overlapping service: distinct because it does not overlap the usual components of the main service',
};
const CITE_X_MODIFIERS = 'CMS MLN MM8863, CR 8863';
export const DISTINCT_MODIFIERS: ReadonlySet<string> = new Set(Object.keys(DISTINCT_MODIFIER_MEANINGS));
/** Global surgery modifiers (24, 25 and 57 count only on the E/M line, see below). */
export const GLOBAL_SURGERY_MODIFIERS: ReadonlySet<string> = new Set(['58', '78', '79']);
/** E/M modifiers: they bypass only when they sit on the evaluation and management line of the pair. */
export const EM_MODIFIERS: ReadonlySet<string> = new Set(['24', '25', '57']);
/** 27: multiple outpatient hospital E/M encounters the same day; 91: repeat clinical laboratory test. */
export const OTHER_BYPASS_MODIFIERS: ReadonlySet<string> = new Set(['27', '91']);

/** Evaluation and management codes (CPT 99202-99499) for the 24/25/57 rule. */
export const isEmCode = (code: string): boolean => /^99\d{3}$/.test(code) && code >= '99202' && code <= '99499';

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
  /** dataset -> version label of every file the day loads read (NCCI files and, for Medicare, the fee schedules). */
  read: Record<string, string>;
  pairs_checked: number;
}

/**
 * What each MUE adjudication indicator means, in the order CMS adjudicates: which units are
 * compared, what is denied over the MUE, then what an appeal may pay. MAI 1: a line edit, a line
 * over the MUE is denied in full; MAI 2: a date of service edit on policy, an absolute limit (units
 * above it are never paid, on appeal either); MAI 3: a date of service edit on clinical
 * benchmarks (on appeal, units above it may be paid with documentation of medical necessity).
 */
const MAI_MEANING: Record<1 | 2 | 3, string> = {
  1: 'MAI 1 (line edit): the units on each claim line are compared with the MUE; a line over it is denied in full',
  2: 'MAI 2 (date of service edit, policy): units of the code on all lines for the date are summed; the MUE is an absolute limit: units above it are not payable, on appeal either',
  3: 'MAI 3 (date of service edit, clinical): units of the code on all lines for the date are summed; on appeal, units above the MUE may be paid with documentation of medical necessity',
};

/**
 * Where CMS says what an MUE denies: a claim line edit denies all units of the line; a date of
 * service edit sums the code's units the provider reported for the beneficiary on the date and, over
 * the MUE, denies all units of the code on the current claim (not only the excess).
 */
export const MUE_ADJUDICATION_CITATION = {
  title: 'CMS FAQ 11344: How are claims adjudicated with Medically Unlikely Edits (MUEs)? (claim line edits deny all units of the line; date of service edits deny all units of the code on the claim); CMS NCCI Medically Unlikely Edits page',
  url: 'https://questions.cms.gov/faq.php?id=5005&faqId=11344',
};

/** What CMS denies when units exceed an MUE with this indicator (the words every MUE answer carries). */
export function mueWhenExceeded(mai: 1 | 2 | 3): string {
  if (mai === 1) return 'claim line edit: a line whose units exceed the MUE is denied in full (all its units, not only the units above the MUE); the same code on another line, with a modifier for a distinct service, is adjudicated separately';
  const appeal = mai === 2 ? 'the MUE is an absolute policy limit: units above it are not payable, on appeal either' : 'on appeal, units above the MUE may be paid with documentation of medical necessity';
  return `date of service edit: the code's units the provider reports for the beneficiary on the date (on this and earlier claims) are summed; over the MUE, all units of the code on the claim are denied, not only the excess; ${appeal}`;
}

/** Why (or whether) modifiers on a pair of lines bypass an indicator-1 edit; null when none does. */
export function bypassRule(col1: ClaimLine, col2: ClaimLine): string | null {
  const both = [...col1.modifiers, ...col2.modifiers];
  // 59 and -X{EPSU} are not used with E/M services (NCCI Policy Manual ch. I, E): on an E/M line they bypass nothing.
  const distinct = [...(isEmCode(col1.code) ? [] : col1.modifiers), ...(isEmCode(col2.code) ? [] : col2.modifiers)].find((m) => DISTINCT_MODIFIERS.has(m));
  if (distinct) return `modifier ${distinct} (${DISTINCT_MODIFIER_MEANINGS[distinct]}${distinct === '59' ? '' : `; ${CITE_X_MODIFIERS}`})`;
  const other = both.find((m) => OTHER_BYPASS_MODIFIERS.has(m));
  if (other) return `modifier ${other} (${other === '27' ? 'separate outpatient hospital E/M encounter' : 'repeat clinical diagnostic laboratory test'})`;
  const global = both.find((m) => GLOBAL_SURGERY_MODIFIERS.has(m));
  if (global) return `modifier ${global} (global surgery)`;
  for (const line of [col1, col2]) {
    const em = line.modifiers.find((m) => EM_MODIFIERS.has(m));
    if (em && isEmCode(line.code)) return `modifier ${em} on the E/M line ${line.line_id} (${line.code})`;
  }
  const sites = (l: ClaimLine) => l.modifiers.filter((m) => ANATOMIC_MODIFIERS.has(m));
  const s1 = sites(col1);
  const s2 = sites(col2);
  if (s1.length && s2.length && !s1.some((m) => s2.includes(m))) return `anatomic modifiers ${s1.join('/')} and ${s2.join('/')} (different sites)`;
  return null;
}

/** Where each Medicare payment rule of the claim check is published (`url` null where no stable page is cited). */
const MEDICARE_RULE_SOURCES: Record<'pfs_status' | 'opps_status' | 'modifier_59', { title: string; url: string | null }> = {
  pfs_status: {
    title: 'CMS Physician Fee Schedule Relative Value File, record layout and definitions (RVU25D.pdf): Status Code',
    url: 'https://www.cms.gov/medicare/payment/fee-schedules/physician/pfs-relative-value-files',
  },
  opps_status: {
    title: "CMS OPPS final rule, Addendum D1: Payment Status Indicators (the definitions of Addendum B's SI column)",
    url: null,
  },
  modifier_59: {
    title: 'CMS NCCI Policy Manual for Medicare Services, Chapter I, section E: modifier 59 and its -X{EPSU} subsets identify distinct procedures or services other than E&M services',
    url: NCCI_POLICY_MANUAL.url,
  },
};

/** PFS status codes the RVU file marks as never paid under the PFS, with the file's definition. */
const PFS_NOT_PAID: Readonly<Record<string, string>> = {
  B: 'bundled code: payment for it is always bundled into the payment for other services; RVUs shown are not used for Medicare payment',
  I: 'not valid for Medicare purposes: Medicare uses another code for reporting and paying this service',
  N: 'non-covered service: not covered by Medicare',
  E: 'excluded from the physician fee schedule by regulation: no payment may be made under the PFS',
  X: 'statutory exclusion: not in the statutory definition of physician services; no payment may be made under the PFS',
};

/** PFS status codes of deleted codes (D: deleted with the start of the year; F: deleted, no grace period). */
const PFS_DELETED: Readonly<Record<string, string>> = {
  D: 'deleted code: deleted effective with the beginning of the year of the release',
  F: 'deleted/discontinued code: no grace period',
};

/** OPPS status indicators never paid on an outpatient hospital claim, with Addendum D1's definition. */
const OPPS_NOT_PAID: Readonly<Record<string, string>> = {
  B: 'codes that are not recognized by OPPS when submitted on an outpatient hospital Part B bill type (12x and 13x)',
  E1: 'not covered by any Medicare outpatient benefit category, statutorily excluded, or not reasonable and necessary: not paid by Medicare on outpatient claims (any outpatient bill type)',
  E2: 'items and services for which pricing information and claims data are not available: not paid by Medicare on outpatient claims (any outpatient bill type)',
  M: 'items and services not billable to the MAC: not paid under the OPPS',
};

/**
 * What Medicare pays for each line (Medicare claims only): a code not valid on the date, a code the
 * PFS never pays on a professional claim (by its RVU status code), a code invalid in the setting (a
 * hospital outpatient code on a professional claim; OPPS status B, E1, E2, M on an outpatient
 * claim), and modifiers 59/XE/XP/XS/XU on an E/M line. Each is a failing `code` or `modifier` finding.
 */
export function medicareFindings(l: ClaimLine, setting: 'prac' | 'hosp', m: MedicareCodeFacts | undefined): ClaimFinding[] {
  const out: ClaimFinding[] = [];
  const at = `${l.code} (line ${l.line_id})`;
  const base = { line_ids: [l.line_id], codes: [l.code], edit: null };
  if (m) {
    const deleted = ownValue(PFS_DELETED, m.status_code);
    if (deleted) {
      out.push({ ...base, kind: 'code', status: 'fail', rule: `PFS status ${m.status_code}`, citation: MEDICARE_RULE_SOURCES.pfs_status, message: `${at} is not valid on ${l.date_of_service}: PFS status ${m.status_code} in RVU release ${m.rvu_version} (${deleted})` });
    } else if (m.outside_release) {
      const o = m.outside_release;
      const why = o.state === 'deleted' ? `it is in RVU release ${o.other_version} but not in ${m.rvu_version}, the release in force on ${l.date_of_service} (deleted)` : `it first appears in RVU release ${o.other_version}, after ${m.rvu_version}, the release in force on ${l.date_of_service} (not yet effective)`;
      out.push({ ...base, kind: 'code', status: 'fail', rule: o.state === 'deleted' ? 'code deleted' : 'code not yet effective', citation: MEDICARE_RULE_SOURCES.pfs_status, message: `${at} is not valid on ${l.date_of_service}: ${why}` });
    }
    if (setting === 'prac') {
      const notPaid = ownValue(PFS_NOT_PAID, m.status_code);
      const otherSchedule = m.clfs ? 'the clinical laboratory fee schedule' : m.dmepos ? 'the DMEPOS fee schedule' : m.asp ? 'the ASP drug payment limits' : null;
      const facilityOnly = m.opps !== null && m.opps.payment_rate !== null && !OPPS_NOT_PAID[m.opps.status_indicator];
      // Status X and E codes are outside the PFS; a lab, DME or Part B drug code is paid under its own schedule.
      const paidElsewhere = (m.status_code === 'X' || m.status_code === 'E') && otherSchedule !== null;
      if (notPaid && paidElsewhere) {
        // not a finding
      } else if (notPaid && m.status_code === 'X' && facilityOnly) {
        out.push({
          ...base,
          kind: 'code',
          status: 'fail',
          rule: 'invalid in the setting: PFS status X, paid under the OPPS',
          citation: MEDICARE_RULE_SOURCES.pfs_status,
          message: `${at} is not payable on a professional claim: PFS status X (${notPaid}); it is a hospital outpatient code (OPPS status indicator ${m.opps!.status_indicator}, APC payment in Addendum B ${m.opps!.version}) billed by the hospital on its institutional claim`,
        });
      } else if (notPaid) {
        out.push({ ...base, kind: 'code', status: 'fail', rule: `PFS status ${m.status_code}`, citation: MEDICARE_RULE_SOURCES.pfs_status, message: `${at} is not paid under the Medicare physician fee schedule: PFS status ${m.status_code} in RVU release ${m.rvu_version} (${notPaid})` });
      } else if (m.status_code === null && !otherSchedule && m.opps?.status_indicator === 'E1') {
        out.push({ ...base, kind: 'code', status: 'fail', rule: 'OPPS status indicator E1', citation: MEDICARE_RULE_SOURCES.opps_status, message: `${at} is not paid by Medicare: it has no physician fee schedule row, and Addendum B ${m.opps.version} gives status indicator E1 (${OPPS_NOT_PAID.E1})` });
      }
    } else if (m.opps && OPPS_NOT_PAID[m.opps.status_indicator]) {
      const si = m.opps.status_indicator;
      out.push({ ...base, kind: 'code', status: 'fail', rule: `OPPS status indicator ${si}`, citation: MEDICARE_RULE_SOURCES.opps_status, message: `${at} is not paid on an outpatient hospital claim: status indicator ${si} in Addendum B ${m.opps.version} (${OPPS_NOT_PAID[si]})` });
    }
  }
  if (isEmCode(l.code)) {
    const bad = l.modifiers.filter((x) => DISTINCT_MODIFIERS.has(x));
    if (bad.length) {
      out.push({
        ...base,
        kind: 'modifier',
        status: 'fail',
        rule: `modifier ${bad.join('/')} on an E/M code`,
        citation: MEDICARE_RULE_SOURCES.modifier_59,
        message: `${at}: modifier ${bad.join(', ')} does not apply to an evaluation and management code; a separately identifiable E/M service takes modifier 25 (57 for the decision for surgery), and ${bad.join('/')} on it bypasses no edit`,
      });
    }
  }
  return out;
}

/** Checks a claim's lines against the NCCI edits the lookups serve. */
export async function checkClaim(lines: ClaimLine[], lk: ClaimLookups, setting: 'prac' | 'hosp' = 'prac'): Promise<ClaimCheck> {
  const findings: ClaimFinding[] = [];
  const versions: Record<string, string> = {};
  const warnings = new Set<string>();

  // What each date of service needs, loaded once per date.
  const days = new Map<string, DayLookups>();
  for (const dos of new Set(lines.map((l) => l.date_of_service))) {
    days.set(dos, await lk.day([...new Set(lines.filter((l) => l.date_of_service === dos).map((l) => l.code))], dos));
  }
  const dayOf = (l: ClaimLine) => days.get(l.date_of_service)!;
  let degraded = false;
  const read: Record<string, string> = {};
  for (const day of days.values()) {
    for (const c of day.coverage ?? []) {
      read[c.dataset] = c.version;
      if (c.covered) continue;
      degraded = true;
      if (c.warning) warnings.add(c.warning);
    }
  }

  // Codes no loaded file knows for the date: no_data, never a silent pass; their edits are not checked.
  const known = (l: ClaimLine) => dayOf(l).known(l.code);
  for (const l of lines) {
    if (!known(l)) {
      findings.push({
        kind: 'code',
        status: 'no_data',
        line_ids: [l.line_id],
        codes: [l.code],
        message: `${l.code} (line ${l.line_id}) is in none of the loaded code sets (physician RVUs, OPPS, CLFS, DMEPOS, NCCI) for ${l.date_of_service}: its edits cannot be checked`,
        edit: null,
        rule: null,
      });
    }
  }
  const checked = lines.filter(known);

  // What Medicare pays (Medicare claims only: the lookups then carry the fee schedules' facts).
  for (const l of lines) {
    const day = dayOf(l);
    if (!day.medicare && !isEmCode(l.code)) continue;
    findings.push(...medicareFindings(l, setting, known(l) ? day.medicare?.(l.code) : undefined));
  }

  // PTP: every pair, in CMS column order.
  // Every (unordered) pair of lines on the same date with different codes (190 for 20 lines),
  // walked in place: most have no edit and allocate nothing.
  let pairsChecked = 0;
  const checkPair = (a: ClaimLine, b: ClaimLine) => {
    const l = dayOf(a).ptp(a.code, b.code);
    if (l.choice) {
      versions[l.dataset] = l.choice.version.version;
      if (l.choice.warning) warnings.add(l.choice.warning);
    }
    if (l.status === 'no_data') {
      findings.push({ kind: 'ptp', status: 'no_data', line_ids: [a.line_id, b.line_id], codes: [a.code, b.code], message: `no ${l.dataset} version is loaded: the pair ${a.code}/${b.code} could not be checked`, edit: null, rule: null });
      return;
    }
    const r = l.row;
    if (!r) return; // no edit pairs these codes: nothing to report (counted in pairs_checked)
    const [c1, c2] = r.column1 === a.code ? [a, b] : [b, a];
    const edit: PtpEditUsed = {
      type: 'ptp',
      dataset: l.dataset,
      version: l.choice!.version.version,
      column1: r.column1,
      column2: r.column2,
      effective_date: r.effective_date,
      deletion_date: r.deletion_date,
      modifier_indicator: r.modifier_indicator,
      rationale: r.rationale,
    };
    const base = { kind: 'ptp' as const, line_ids: [c1.line_id, c2.line_id], codes: [c1.code, c2.code], edit };
    const pair = `${c2.code} (line ${c2.line_id}) with ${c1.code} (line ${c1.line_id})`;
    if (l.status === 'not_applicable') {
      findings.push({ ...base, status: 'pass', rule: 'modifier indicator 9', message: `${pair}: the edit has modifier indicator 9 (deleted back to its effective date); it does not apply` });
      return;
    }
    if (l.status === 'deleted' || l.status === 'not_yet_effective') {
      const when = l.status === 'deleted' ? `was deleted after ${r.deletion_date}` : `takes effect ${r.effective_date}`;
      findings.push({ ...base, status: 'pass', rule: null, message: `${pair}: the edit ${when}, so it does not apply on ${c1.date_of_service}` });
      return;
    }
    const why = `${r.rationale}; edit effective ${r.effective_date ?? 'always'}`;
    if (r.modifier_indicator === '0') {
      findings.push({
        ...base,
        status: 'fail',
        rule: 'modifier indicator 0',
        message: `${pair}: column 2 code ${c2.code} is not payable with column 1 code ${c1.code} on the same date (${why}); modifier indicator 0: no modifier bypasses this edit`,
      });
      return;
    }
    const bypass = bypassRule(c1, c2);
    if (bypass) {
      findings.push({ ...base, status: 'bypassed', rule: bypass, message: `${pair}: edit bypassed by ${bypass} (modifier indicator 1: allowed when the documentation supports a separate service) (${why})` });
    } else {
      findings.push({
        ...base,
        status: 'fail',
        rule: 'modifier indicator 1',
        message: `${pair}: column 2 code ${c2.code} is bundled into ${c1.code} (${why}); modifier indicator 1: an NCCI-associated modifier (59 or XE/XP/XS/XU, anatomic modifiers for different sites, 24/25/57 on the E/M line, 58/78/79, 27, 91) bypasses it only when the documentation supports a distinct service`,
      });
    }
  };
  for (let i = 0; i < checked.length; i++) {
    const a = checked[i]!;
    for (let j = i + 1; j < checked.length; j++) {
      const b = checked[j]!;
      if (a.code === b.code || a.date_of_service !== b.date_of_service) continue;
      pairsChecked++;
      checkPair(a, b);
    }
  }

  // MUE: per line (MAI 1) and per code and date across lines (MAI 2 and 3).
  const groups = new Map<string, ClaimLine[]>();
  for (const l of checked) {
    const k = `${l.code}\u0000${l.date_of_service}`;
    const g = groups.get(k);
    if (g) g.push(l);
    else groups.set(k, [l]);
  }
  for (const g of groups.values()) {
    const first = g[0]!;
    const m = dayOf(first).mue(first.code);
    if (!m) {
      findings.push({ kind: 'mue', status: 'no_data', line_ids: g.map((l) => l.line_id), codes: [first.code], message: `no MUE table is loaded for this setting: units of ${first.code} could not be checked`, edit: null, rule: null });
      continue;
    }
    versions[m.dataset] = m.version;
    if (!m.row) continue; // no MUE for the code: nothing limits its units
    const edit: MueEditUsed = { type: 'mue', dataset: m.dataset, version: m.version, code: first.code, ...m.row };
    const mai = m.row.mue_adj_ind;
    const value = m.row.mue_value;
    if (mai === 1 || mai === null) {
      // MAI 1, and Medicaid rows (no MAI: states apply them per line or per date) are checked per line.
      for (const l of g) {
        const over = l.units > value;
        const denied = over && mai === 1 ? `: CMS denies the whole line, all ${l.units} units, not only the ${l.units - value} above it` : '';
        findings.push({
          kind: 'mue',
          status: over ? 'fail' : 'pass',
          line_ids: [l.line_id],
          codes: [l.code],
          edit,
          rule: mai === 1 ? 'MAI 1' : 'Medicaid MUE (no MAI)',
          message: `${l.code} line ${l.line_id}: ${l.units} unit(s) ${over ? 'exceed' : 'within'} the MUE of ${value}${denied}; ${mai === 1 ? MAI_MEANING[1] : 'Medicaid MUEs carry no adjudication indicator; each state applies them per line or per date of service'}`,
          ...(over && mai === 1 ? { denied_units: l.units, citation: MUE_ADJUDICATION_CITATION } : {}),
        });
      }
      const total = g.reduce((s, l) => s + l.units, 0);
      if (mai === null && g.length > 1 && total > value) {
        findings.push({ kind: 'mue', status: 'warn', line_ids: g.map((l) => l.line_id), codes: [first.code], edit, rule: 'Medicaid MUE (no MAI)', message: `${first.code}: ${total} units on ${g.length} lines exceed the MUE of ${value} for the date; a state that applies it per date of service denies the excess` });
      }
      continue;
    }
    const total = g.reduce((s, l) => s + l.units, 0);
    const over = total > value;
    const denied = over ? `: CMS denies all ${total} units of ${first.code} for the date on this claim, not only the ${total - value} above it (units on other claims for the date count toward the MUE too)` : '';
    findings.push({
      kind: 'mue',
      status: over ? 'fail' : 'pass',
      line_ids: g.map((l) => l.line_id),
      codes: [first.code],
      edit,
      rule: `MAI ${mai}`,
      message: `${first.code} on ${first.date_of_service}: ${total} unit(s) across ${g.length} line(s) ${over ? 'exceed' : 'within'} the MUE of ${value}${denied}; ${MAI_MEANING[mai]}`,
      ...(over ? { denied_units: total, citation: MUE_ADJUDICATION_CITATION } : {}),
    });
  }

  // Add-on codes: a type 1 add-on needs one of its primaries on the claim for the date. A line whose
  // code failed the Medicare code check is not paid, as an add-on or otherwise: its add-on check
  // fails with that reason rather than passing beside it (99417, PFS status I, with 99215).
  const invalid = new Map(findings.filter((f) => f.kind === 'code' && f.status === 'fail').map((f) => [f.line_ids[0]!, f]));
  for (const l of checked) {
    const a = dayOf(l).aoc(l.code);
    if (!a) {
      warnings.add('ncci_aoc is not loaded: add-on codes were not checked');
      continue;
    }
    versions[a.dataset] = a.version;
    if (a.as_addon.length === 0) continue;
    const type = Math.min(...a.as_addon.map((r) => r.aoc_edit_type));
    const primaries = [...new Set(a.as_addon.map((r) => r.primary_code).filter((p) => p !== ANY_PRIMARY))];
    const present = checked.filter((o) => o !== l && o.date_of_service === l.date_of_service && primaries.includes(o.code));
    const edit: AocEditUsed = { type: 'aoc', dataset: a.dataset, version: a.version, addon_code: l.code, aoc_edit_type: type, primary_codes: primaries };
    const ids = [l.line_id, ...present.map((p) => p.line_id)];
    const bad = invalid.get(l.line_id);
    if (bad) {
      const withPrimary = present.length ? `; its primary ${present.map((p) => `${p.code} (line ${p.line_id})`).join(', ')} is on the claim, but` : ';';
      findings.push({ kind: 'aoc', status: 'fail', line_ids: ids, codes: [l.code, ...present.map((p) => p.code)], edit, rule: `AOC type ${type}`, ...(bad.citation ? { citation: bad.citation } : {}), message: `add-on ${l.code} (line ${l.line_id}) fails the Medicare code check (${bad.rule})${withPrimary} a code Medicare does not pay is not paid as an add-on either` });
    } else if (present.length) {
      findings.push({ kind: 'aoc', status: 'pass', line_ids: ids, codes: [l.code, ...present.map((p) => p.code)], edit, rule: `AOC type ${type}`, message: `add-on ${l.code} (line ${l.line_id}) is billed with its primary ${present.map((p) => `${p.code} (line ${p.line_id})`).join(', ')}` });
    } else if (type === 1) {
      findings.push({ kind: 'aoc', status: 'fail', line_ids: ids, codes: [l.code], edit, rule: 'AOC type 1', message: `add-on ${l.code} (line ${l.line_id}) has none of its primary codes on the claim for ${l.date_of_service} (type 1: only ${primaries.join(', ')} are acceptable primaries)` });
    } else {
      const detail = type === 2 ? 'type 2: CMS lists no primaries; your Medicare contractor decides which are acceptable' : `type 3: CMS lists ${primaries.join(', ')}; the contractor may accept other primaries`;
      findings.push({ kind: 'aoc', status: 'warn', line_ids: ids, codes: [l.code], edit, rule: `AOC type ${type}`, message: `add-on ${l.code} (line ${l.line_id}) has no listed primary code on the claim (${detail})` });
    }
  }

  return { findings, versions, warnings: [...warnings], degraded, read, pairs_checked: pairsChecked };
}
