import { HOSPITAL_POS } from '../../lib/vocabulary/place_of_service.js';
import { dotted } from '../../datasets/icd10cm/dataset.js';
import { findDx, icd10Index } from '../../datasets/icd10cm/queries.js';
import { filingDeadline } from '../deadlines/deadlines.js';
import { Dec } from '../../lib/decimal.js';
import { npiProblem } from '../npi/provider.js';
import { lineCoverage } from '../policies/line_coverage.js';
import type { PolicyIndex } from '../policies/service.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { observed, predicted, type FindingContext } from './findings.js';
import { CITE } from './predictions.js';
import type { Claim, Line } from './model.js';
import type { CheckedClaim, ClaimCheckFinding } from './schemas.js';

/**
 * The claim check's units that read only the claim and one lookup each: structure, diagnoses,
 * coverage, duplicates within the claim, timely filing. NCCI, prior authorization and pricing,
 * which compose other areas' services, are in `service.ts`. Each unit adds findings to the claim
 * or its lines and names what it could not check in `unchecked`.
 */

/** A claim being checked: the claim as read, and what the checks have found so far. */
export interface Checking {
  claim: Claim;
  c: FindingContext;
  findings: ClaimCheckFinding[];
  /** Findings per line, by the line's index in `claim.lines`. */
  lineFindings: ClaimCheckFinding[][];
  unchecked: CheckedClaim['unchecked'];
  diagnoses: CheckedClaim['diagnoses'];
}

/** A line's date of service: its DTP*472, else the claim's statement start (837I). */
export const lineDate = (claim: Claim, l: Line): string | null => l.date_from ?? claim.statement_from;

/** The diagnoses a line points at (837P SV107), or every diagnosis of the claim (837I has no pointers). */
export function pointed(claim: Claim, l: Line): Claim['diagnoses'] {
  if (claim.kind === 'institutional') return claim.diagnoses;
  return l.diagnosis_pointers.map((p) => claim.diagnoses.find((d) => d.pointer === p)).filter((d): d is Claim['diagnoses'][number] => d !== undefined);
}

const TAXONOMY = /^[0-9]{3}[0-9A-Z]{6}X$/;

/** A structural failure: the claim is rejected before adjudication (277CA), correct and resubmit. */
function rejected(k: Checking, message: string, segment: number | null, lines: number[] = [], dos: string | null = null): ClaimCheckFinding {
  return predicted(k.c, 'structure', { message, segment, lines, facts: { dateOfService: dos } });
}

/**
 * Structure: what the reader found missing or unreadable; CLM02 against the sum of the line
 * charges (exact decimals); each pointer at a diagnosis; every NPI's check digit; taxonomy codes;
 * dates in order; a replacement or void (CLM05-3 7 or 8) naming the claim it replaces (REF*F8).
 */
export function checkStructure(k: Checking, first: string | null): void {
  const { claim } = k;
  for (const i of claim.issues) k.findings.push(rejected(k, `${i.message} (loop ${i.loop})`, i.segment, [], first));
  if (claim.total_charge !== null && claim.lines.every((l) => l.charged !== null)) {
    const sum = claim.lines.reduce((s, l) => s.add(Dec.of(l.charged!)), Dec.of(0));
    if (sum.compare(Dec.of(claim.total_charge)) !== 0) {
      k.findings.push(rejected(k, `CLM02 (total claim charge) is ${Dec.of(claim.total_charge).toString()} but the lines' charges add up to ${sum.toString()}: the TR3 requires them equal`, claim.segment, [], first));
    }
  }
  const pointable = claim.diagnoses.filter((d) => d.pointer !== null).length;
  claim.lines.forEach((l, i) => {
    if (claim.kind !== 'professional' || l.code === null) return;
    const bad = l.diagnosis_pointers.filter((p) => p < 1 || p > pointable);
    if (l.diagnosis_pointers.length === 0) k.lineFindings[i]!.push(rejected(k, `line ${l.line_number} points at no diagnosis (SV107-1 is required)`, l.segment, [l.line_number], lineDate(claim, l)));
    else if (bad.length) k.lineFindings[i]!.push(rejected(k, `line ${l.line_number} points at diagnosis ${bad.join(', ')}, but the claim has ${pointable} diagnosis code${pointable === 1 ? '' : 's'}`, l.segment, [l.line_number], lineDate(claim, l)));
    if (l.date_to && l.date_from && l.date_to < l.date_from) k.lineFindings[i]!.push(rejected(k, `line ${l.line_number}'s service dates end before they begin`, l.segment, [l.line_number], l.date_from));
  });
  const providers = [['billing provider (2010AA)', claim.billing_provider], ['rendering provider', claim.rendering_provider], ['service facility (NM1*77)', claim.service_facility]] as const;
  for (const [what, p] of providers) {
    if (p?.npi) {
      const problem = npiProblem(p.npi);
      if (problem) k.findings.push({ ...rejected(k, `the ${what} NPI is not valid: ${problem.replace(`the check digit of ${p.npi}`, 'its check digit')}`, p.segment, [], first), citations: [CITE.npi, ...CITE_STRUCT] });
    }
    if (p?.taxonomy && !TAXONOMY.test(p.taxonomy)) k.findings.push(rejected(k, `the ${what} taxonomy code is not 9 letters or digits then X (the NUCC code set's shape)`, p.segment, [], first));
  }
  if (claim.statement_from && claim.statement_to && claim.statement_to < claim.statement_from) k.findings.push(rejected(k, 'the statement period (DTP*434) ends before it begins', claim.segment, [], first));
  if ((claim.frequency === '7' || claim.frequency === '8') && !claim.original_reference) {
    k.findings.push(rejected(k, `a ${claim.frequency === '7' ? 'replacement' : 'void'} (CLM05-3 ${claim.frequency}) must name the payer's claim number of the claim it ${claim.frequency === '7' ? 'replaces' : 'voids'} (REF*F8)`, claim.segment, [], first));
  }
}
const CITE_STRUCT = [CITE.tr3Professional];

/**
 * Diagnoses against ICD-10-CM of the earliest date of service's release: a code not in the release
 * or a category (not billable) is returned as unprocessable (CO-16, M76); a seed excerpt decides
 * nothing (`no_data`).
 */
export async function checkDiagnoses(snapshot: SnapshotReader, k: Checking, dos: string | null): Promise<void> {
  const { claim } = k;
  const icd = dos ? await icd10Index(snapshot, dos) : null;
  if (!dos) k.unchecked.push({ check: 'diagnosis', reason: 'the claim has no date of service to choose an ICD-10-CM release by' });
  else if (!icd) k.unchecked.push({ check: 'diagnosis', reason: 'icd10cm is not loaded' });
  else if (!icd.covered) k.unchecked.push({ check: 'diagnosis', reason: `no ICD-10-CM release in force on ${dos} is loaded (${icd.warning ?? `nearest ${icd.version}`})` });
  for (const d of claim.diagnoses) {
    const row = icd?.covered ? findDx(icd.codes, d.code) : undefined;
    const status = !icd?.covered ? 'unchecked' : !row ? (icd.seed ? 'unknown' : 'invalid') : row.billable ? 'valid' : 'not_billable';
    k.diagnoses.push({ code: d.code, qualifier: d.qualifier, pointer: d.pointer, status });
    const lines = claim.lines.filter((l) => pointed(claim, l).includes(d)).map((l) => l.line_number);
    if (status === 'invalid') k.findings.push(predicted(k.c, 'diagnosis', { message: `${d.code} is not an ICD-10-CM code in ${icd!.version}`, segment: d.segment, lines, facts: { dateOfService: dos } }));
    if (status === 'not_billable') k.findings.push(predicted(k.c, 'diagnosis', { message: `${d.code} is a category, not a billable code in ${icd!.version}: report a code with all its characters`, segment: d.segment, lines, facts: { dateOfService: dos } }));
    if (status === 'unknown') k.findings.push(observed('diagnosis', 'no_data', `${d.code} is not in the loaded ICD-10-CM seed excerpt (${icd!.version}); load the CDC release to validate it`, d.segment, lines));
  }
  if (claim.kind === 'professional' && claim.diagnoses.length === 0 && !claim.issues.some((i) => i.segment_id === 'HI')) {
    k.findings.push(rejected(k, 'the claim has no diagnosis (HI with ABK or BK is required on a professional claim)', claim.segment, [], dos));
  }
}

/** DMEPOS codes (E, K, L): their coverage follows the beneficiary's state, not the supplier's. */
const isDmepos = (code: string) => /^[EKL]\d{4}$/.test(code);

/**
 * Coverage (Medicare claims): each line's pointed diagnoses against the covered lists of the
 * billing articles that list its code in the state of the service (2310C, else 2010AA; a DMEPOS
 * line the beneficiary's); not covered: CO-50 (PR-50 with GA, an ABN on file), and the fix is to
 * point at a diagnosis of the claim the article covers, else an ABN before the service.
 */
export function checkCoverage(idx: PolicyIndex, version: string, k: Checking): void {
  const { claim } = k;
  const place = claim.service_facility?.state ?? claim.billing_provider?.state ?? null;
  claim.lines.forEach((l, i) => {
    const dos = lineDate(claim, l);
    if (!l.code || !dos) return;
    const state = isDmepos(l.code) ? (claim.patient.state ?? claim.subscriber.state ?? place) : place;
    // Named with their dots, as ICD-10-CM prints them (and POST /v1/ncci/validate answers them).
    const dx = pointed(claim, l).map((d) => dotted(d.code));
    const cov = lineCoverage(idx, version, { code: l.code, date: dos, modifiers: l.modifiers }, state, dx, claim.diagnoses.map((d) => dotted(d.code)));
    if (!cov) return;
    const o = { message: cov.message, segment: l.segment, lines: [l.line_number], facts: { dateOfService: dos, modifiers: l.modifiers }, citations: cov.citations };
    if (cov.verdict === 'covered') k.lineFindings[i]!.push(observed('coverage', 'pass', cov.message, l.segment, [l.line_number], cov.citations));
    else if (cov.verdict === 'repoint') k.lineFindings[i]!.push(predicted(k.c, 'coverage', o));
    else if (cov.verdict === 'abn_on_file') k.lineFindings[i]!.push(predicted(k.c, 'coverage_ga', { ...o, status: 'warn' }));
    else k.lineFindings[i]!.push(predicted(k.c, 'coverage_no_abn', o));
  });
}

/** Who a claim is for: member id, the patient's name and birth date (duplicates and global periods are per patient). */
export const patientKey = (claim: Claim): string => [claim.subscriber.member_id, claim.patient.last_name, claim.patient.first_name, claim.patient.birth_date].join('|');

/** The key of a service for duplicates: patient, code, date, modifiers (in any order), and charge-independent. */
export const serviceKey = (claim: Claim, l: Line): string | null => {
  const dos = lineDate(claim, l);
  if (!l.code || !dos) return null;
  return [patientKey(claim), l.code, dos, [...l.modifiers].sort().join(',')].join('|');
};

/** The same service twice on one claim: the second line is denied as a duplicate (OA-18). */
export function checkDuplicateLines(k: Checking): void {
  const seen = new Map<string, Line>();
  k.claim.lines.forEach((l, i) => {
    const key = serviceKey(k.claim, l);
    if (!key) return;
    const first = seen.get(key);
    if (!first) return void seen.set(key, l);
    k.lineFindings[i]!.push(predicted(k.c, 'duplicate', { message: `line ${l.line_number} bills ${l.code}${l.modifiers.length ? `-${l.modifiers.join('-')}` : ''} on ${lineDate(k.claim, l)} again (line ${first.line_number}): bill the units on one line, or add the modifier that makes it distinct`, segment: l.segment, lines: [first.line_number, l.line_number], facts: { dateOfService: lineDate(k.claim, l) } }));
  });
}

/**
 * Timely filing: the payer's initial-claim rule from the earliest date of service; past it, the
 * claim is denied CO-29 (Medicare: not appealable, 42 CFR 405.926(n)).
 */
export function checkTimelyFiling(k: Checking, dos: string | null, state: string | null, memo: Map<string, ReturnType<typeof filingDeadline>> = new Map()): CheckedClaim['submit_by'] {
  const { payers, payer, asOf } = k.c;
  const rule = payer.row && payers ? (payers.filing.get(payer.row.slug) ?? []).find((r) => r.claim_type === 'initial') : undefined;
  if (!rule) {
    k.unchecked.push({ check: 'timely_filing', reason: payer.row ? `no initial filing rule of ${payer.row.slug} is loaded` : 'the payer (2010BB NM1*PR) is not one the loaded payer rules name' });
    return null;
  }
  if (!dos) {
    k.unchecked.push({ check: 'timely_filing', reason: 'the claim has no date of service' });
    return null;
  }
  // A file's claims share a few payers, dates and states: each deadline is computed once.
  const key = [payer.row!.slug, rule.rule_id, dos, state, asOf].join('|');
  let d = memo.get(key);
  if (!d) memo.set(key, (d = filingDeadline(rule, { date_of_service: dos, as_of: asOf, state: state ?? undefined })));
  const out = { date: d.deadline_date ?? null, days_remaining: d.days_remaining ?? null, rule_id: rule.rule_id, citation: rule.citation };
  if (out.days_remaining !== null && out.days_remaining < 0) {
    k.findings.push(predicted(k.c, 'timely_filing', { message: `the filing limit of ${payer.row!.slug} for a service on ${dos} was ${out.date} (${d.explanation})`, segment: k.claim.segment, facts: { dateOfService: dos }, citations: [rule.citation] }));
  } else {
    k.findings.push(observed('timely_filing', 'pass', `submit by ${out.date} (${d.explanation})`, k.claim.segment, [], [rule.citation]));
  }
  return out;
}

/**
 * A hospital place of service (19, 21, 22, 23 ...) on a claim of a facility (`ccn`) that is not a
 * hospital: the payer reads the place against the provider and most likely denies it as
 * inconsistent (CO-5); a warning, since the service may truly have been at a hospital.
 */
export function checkPlaceOfService(k: Checking, facility: { ccn: string; hospital: boolean; type: string }): void {
  const { claim } = k;
  if (facility.hospital) return;
  claim.lines.forEach((l, i) => {
    const pos = l.place_of_service ?? claim.place_of_service;
    if (!pos || !HOSPITAL_POS.has(pos)) return;
    k.lineFindings[i]!.push(predicted(k.c, 'place_of_service', { status: 'warn', message: `place of service ${pos} is a hospital setting, but ccn ${facility.ccn} is not a hospital (${facility.type.replace(/_/g, ' ')})`, segment: l.segment, lines: [l.line_number], facts: { dateOfService: lineDate(claim, l), modifiers: l.modifiers } }));
  });
}
