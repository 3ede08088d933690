import { toCents, type Dec } from '../../lib/decimal.js';
import type { X12Index } from '../../datasets/x12_codes/queries.js';
import { npiProblem } from '../npi/provider.js';
import { finding, num, sum, type Ctx, type RawAdj } from './reading.js';
import { GROUPS_5010 } from '../../lib/vocabulary/adjustment_groups.js';
import type { ClaimAcc, LineAcc } from './segments.js';
import type { Segment } from './x12.js';

/**
 * What is checked once a claim is read, each check a unit of `CLAIM_CHECKS`: the 835's balancing
 * rules, the elements the TR3 requires, group codes and CARC usage notes, dates, the patient's
 * share and NPI check digits. Each finding names the segment it is about.
 */

type ClaimCheck = (c: Ctx, cl: ClaimAcc, ci: number) => void;

const f2 = (d: Dec) => toCents(d).toFixed(2);
const where = (ci: number, li: number | null) => (li === null ? `claim ${ci + 1}` : `line ${li + 1} of claim ${ci + 1}`);

/** A line's charge less its payment equals its adjustments (835 balancing). */
const lineBalances: ClaimCheck = (c, cl, ci) => {
  cl.lines.forEach((l, li) => {
    const adjSum = sum(l.adjs.map((a) => a.amount));
    if (l.charged.sub(l.paid).compare(adjSum) !== 0) {
      finding(c, 'line_unbalanced', 'warning', `line ${li + 1} of claim ${ci + 1}: charge ${f2(l.charged)} less paid ${f2(l.paid)} is ${f2(l.charged.sub(l.paid))}, its adjustments total ${f2(adjSum)}`, l.seg, ci, li);
    }
  });
};

/** A claim's charge less its payment equals its claim and line adjustments. */
const claimBalances: ClaimCheck = (c, cl, ci) => {
  const all = sum([...cl.adjs, ...cl.lines.flatMap((l) => l.adjs)].map((a) => a.amount));
  if (cl.charged.sub(cl.paid).compare(all) !== 0) {
    finding(c, 'claim_unbalanced', 'warning', `claim ${ci + 1}: charge ${f2(cl.charged)} less paid ${f2(cl.paid)} is ${f2(cl.charged.sub(cl.paid))}, its claim and line adjustments total ${f2(all)}`, cl.seg, ci);
  }
};

/** The patient share CARCs: deductible, coinsurance, co-payment, blood deductible. */
const PATIENT_SHARE = new Set(['1', '2', '3', '66']);

/**
 * CLP05 is the patient's responsibility: the sum of the claim's PR adjustments, claim and line
 * (835 TR3, CLP05). A payer whose CLP05 says otherwise leaves the patient's bill in doubt.
 */
const patientShare: ClaimCheck = (c, cl, ci) => {
  const pr = [...cl.adjs, ...cl.lines.flatMap((l) => l.adjs)].filter((a) => a.group === 'PR');
  const all = sum(pr.map((a) => a.amount));
  if (cl.patient.compare(all) === 0) return;
  const share = sum(pr.filter((a) => PATIENT_SHARE.has(a.reason)).map((a) => a.amount));
  finding(c, 'patient_share_mismatch', 'warning', `claim ${ci + 1}: patient responsibility (CLP05) ${f2(cl.patient)} is not its PR adjustments, ${f2(all)} (deductible, coinsurance, co-payment and blood deductible: ${f2(share)}): bill the patient from the adjustments, and ask the payer which is right`, cl.seg, ci);
};

/** X12's usage note on CARCs that must travel with a remark code (16, 96, 251 ...). */
const NEEDS_REMARK = /At least one Remark Code must be provided/i;
/** An alert remark (its text starts `Alert:`) informs; it does not count as the remark such a CARC needs. */
const isAlert = (x12: X12Index, code: string) => /^Alert:/i.test(x12.byKey.get(`rarc:${code}`)?.description ?? '');

function remarksFor(c: Ctx, adjs: RawAdj[], remarks: string[], ci: number, li: number | null): void {
  if (remarks.some((r) => !isAlert(c.x12, r))) return;
  const seen = new Set<string>();
  for (const a of adjs) {
    if (seen.has(a.reason) || !NEEDS_REMARK.test(c.x12.byKey.get(`carc:${a.reason}`)?.description ?? '')) continue;
    seen.add(a.reason);
    finding(c, 'remark_code_missing', 'warning', `CARC ${a.reason} (segment ${a.seg.index}, CAS) needs at least one remark code that is not an alert (its X12 usage note); ${where(ci, li)} has ${remarks.length ? 'only alerts' : 'none'}: ask the payer what is missing or wrong before correcting or appealing`, a.seg, ci, li);
  }
}

/** A CARC whose usage note asks for a remark code, on a line (or claim) with none but alerts: the payer has not said what is wrong. */
const remarkNeeded: ClaimCheck = (c, cl, ci) => {
  cl.lines.forEach((l, li) => remarksFor(c, l.adjs, (l.remarks.length ? l.remarks : cl.remarks).map((r) => r.code), ci, li));
  remarksFor(c, cl.adjs, cl.remarks.map((r) => r.code), ci, null);
};

/** The group codes a CARC's usage note allows ("Use only with Group Code OA"), memoised per code list. */
const usageMemo = new WeakMap<X12Index, Map<string, ReadonlySet<string> | null>>();

export function groupsAllowed(x12: X12Index, reason: string): ReadonlySet<string> | null {
  let memo = usageMemo.get(x12);
  if (!memo) usageMemo.set(x12, (memo = new Map()));
  let allowed = memo.get(reason);
  if (allowed === undefined) {
    const note = /\(Use only with Group Codes? ([^)]*)\)/i.exec(x12.byKey.get(`carc:${reason}`)?.description ?? '')?.[1];
    const groups = note?.match(/\b(CO|PR|OA|PI|CR)\b/g);
    memo.set(reason, (allowed = groups?.length ? new Set(groups) : null));
  }
  return allowed;
}

function groupOf(c: Ctx, a: RawAdj, ci: number, li: number | null): void {
  if (a.group === 'CR') {
    if (!c.version || c.version.startsWith('005')) finding(c, 'group_code_retired', 'warning', `segment ${a.seg.index} (CAS): group code CR (corrections and reversals) is not in the 5010 835; a reversal is CLP02 22 with the original group codes`, a.seg, ci, li);
  } else if (!(GROUPS_5010 as readonly string[]).includes(a.group)) {
    finding(c, 'unknown_group_code', 'error', `segment ${a.seg.index} (CAS): group code ${a.group} is not one of CO, PR, OA, PI: whose the amount is cannot be read`, a.seg, ci, li);
    return;
  }
  const allowed = groupsAllowed(c.x12, a.reason);
  if (allowed && !allowed.has(a.group)) {
    finding(c, 'carc_group_mismatch', 'warning', `segment ${a.seg.index} (CAS): CARC ${a.reason} is used with group ${a.group}, but its X12 usage note says to use it only with ${[...allowed].join(' or ')}`, a.seg, ci, li);
  }
}

/** Each CAS group code exists in 5010, and each CARC's usage note allows its group. */
const groupCodes: ClaimCheck = (c, cl, ci) => {
  for (const a of cl.adjs) groupOf(c, a, ci, null);
  cl.lines.forEach((l, li) => l.adjs.forEach((a) => groupOf(c, a, ci, li)));
};

/** CLP elements the TR3 requires: the claim's number, status, charge, payment, filing indicator and the payer's claim number. */
const CLP_REQUIRED: [number, string][] = [
  [0, 'CLP01 patient control number'],
  [1, 'CLP02 claim status'],
  [2, 'CLP03 total claim charge'],
  [3, 'CLP04 claim payment'],
  [5, 'CLP06 claim filing indicator'],
  [6, 'CLP07 payer claim control number'],
];
/** SVC elements the TR3 requires: the procedure, the charge and the payment. */
const SVC_REQUIRED: [number, string][] = [
  [0, 'SVC01 procedure'],
  [1, 'SVC02 line charge'],
  [2, 'SVC03 line payment'],
];

function required(c: Ctx, seg: Segment, els: [number, string][], ci: number, li: number | null): void {
  const missing = els.filter(([k]) => num(seg.el[k]) === '').map(([, name]) => name);
  if (missing.length) finding(c, 'required_element_missing', 'error', `segment ${seg.index} (${seg.id}) of ${where(ci, li)} has no ${missing.join(', ')}, which the 835 requires${missing.some((m) => /charge|payment/.test(m)) ? ' (read as 0.00)' : ''}`, seg, ci, li);
}

const requiredElements: ClaimCheck = (c, cl, ci) => {
  required(c, cl.seg, CLP_REQUIRED, ci, null);
  cl.lines.forEach((l, li) => required(c, l.seg, SVC_REQUIRED, ci, li));
};

/** A date of service after the remittance's date: a payer cannot have adjudicated it then. */
const serviceDates: ClaimCheck = (c, cl, ci) => {
  const remit = c.datedRemit;
  if (!remit) return;
  cl.lines.forEach((l, li) => {
    if (l.from && l.from > remit) finding(c, 'service_after_remittance', 'warning', `line ${li + 1} of claim ${ci + 1}: date of service ${l.from} is after the remittance date ${remit}`, l.seg, ci, li);
  });
  if (cl.from && cl.from > remit) finding(c, 'service_after_remittance', 'warning', `claim ${ci + 1}: statement from ${cl.from} is after the remittance date ${remit}`, cl.seg, ci);
};

export function checkNpi(c: Ctx, npi: string | null, seg: Segment, what: string, ci: number | null = null, li: number | null = null): void {
  const problem = npi ? npiProblem(npi) : null;
  if (problem) finding(c, 'invalid_npi', 'warning', `segment ${seg.index} (${seg.id}): the ${what} NPI is not valid: ${problem.replace(`the check digit of ${npi}`, 'its check digit')}`, seg, ci, li);
}

/** The rendering provider's NPI (NM1*82 XX) and each line's (REF*HPI) pass the check digit. */
const npis: ClaimCheck = (c, cl, ci) => {
  const r = cl.people.get('82');
  if (r && r.qualifier === 'XX') checkNpi(c, r.id, r.seg, 'rendering provider', ci);
  cl.lines.forEach((l: LineAcc, li) => {
    if (l.renderingNpi) checkNpi(c, l.renderingNpi.value, l.renderingNpi.seg, 'line rendering provider', ci, li);
  });
};

/** Every check of a read claim, in the order its findings are given. */
export const CLAIM_CHECKS: readonly ClaimCheck[] = [requiredElements, groupCodes, lineBalances, claimBalances, patientShare, remarkNeeded, serviceDates, npis];

