import { ownValue } from '../../../lib/own.js';
import { DISTINCT_MODIFIERS, isEmCode, NCCI_POLICY_MANUAL } from '../modifiers.js';
import type { ClaimFinding, ClaimLine } from '../schemas.js';
import type { MedicareCodeFacts } from '../validate.js';
import type { ClaimEdit } from './edit.js';

/** Where each Medicare payment rule of the claim check is published (`url` null where no stable page is cited). */
export const MEDICARE_RULE_SOURCES: Record<'pfs_status' | 'opps_status' | 'modifier_59', { title: string; url: string | null }> = {
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

/**
 * Each line as a Medicare claim pays it (the code on the date, in the setting, by the RVU file's
 * status code and Addendum B's status indicator), and, on every claim, modifiers 59 and -X{EPSU}
 * on an E/M line: `medicareFindings`, line by line.
 */
export const payableLine: ClaimEdit = {
  id: 'payable_line',
  kinds: ['code', 'modifier'],
  applies_to: 'each known line of a Medicare claim (the fee schedules of its date); the E/M modifier rule on every claim',
  does: 'fails a code not valid on the date, not paid under the PFS on a professional claim, or not paid on an outpatient claim; fails 59, XE, XP, XS, XU on an E/M code',
  citation: { title: `${MEDICARE_RULE_SOURCES.pfs_status.title}; ${MEDICARE_RULE_SOURCES.opps_status.title}; ${MEDICARE_RULE_SOURCES.modifier_59.title}`, url: MEDICARE_RULE_SOURCES.pfs_status.url ?? undefined },
  check(c) {
    for (const l of c.lines) {
      const day = c.dayOf(l);
      if (!day.medicare && !isEmCode(l.code)) continue;
      c.findings.push(...medicareFindings(l, c.setting, c.known(l) ? day.medicare?.(l.code) : undefined));
    }
  },
};
