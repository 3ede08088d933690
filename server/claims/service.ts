import type { filingDeadline } from '../deadlines/deadlines.js';
import { isHospitalType, resolveFacility } from '../facilities/service.js';
import { macIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { payerKnowledge, type PayerKnowledge } from '../../datasets/payers/queries.js';
import { x12Index } from '../../datasets/x12_codes/queries.js';
import { findLocalityForZip } from '../../datasets/zip_locality/queries.js';
import { Dec, toCents } from '../../lib/decimal.js';
import { X12Error } from '../../lib/x12/reader.js';
import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { claimLookups, requireClaimDatesCovered } from '../ncci/claim.js';
import type { ClaimFinding, ClaimLine } from '../ncci/schemas.js';
import { ncciSources } from '../ncci/sources.js';
import { checkClaim } from '../ncci/validate.js';
import { paymentFor } from '../payment/service.js';
import { policyIndex } from '../policies/service.js';
import { checkPriorAuth } from '../prior_auth/service.js';
import { claimPayer, identifyPayer, type ClaimPayer } from '../remittances/judge.js';
import { Trace } from '../trace.js';
import { checkCoverage, checkDiagnoses, checkDuplicateLines, checkPlaceOfService, checkStructure, checkTimelyFiling, lineDate, serviceKey, type Checking } from './checks.js';
import { observed, predicted, predictionLabel, type FindingContext } from './findings.js';
import { GlobalPeriods } from './global_surgery.js';
import { checkNdcs } from './drugs.js';
import { checkHcpcsValidity } from './hcpcs.js';
import type { Claim, Line } from './model.js';
import type { PredictionId } from './predictions.js';
import { read837 } from './read837.js';
import type { CheckedClaim, ClaimsCheck, ClaimCheckFinding } from './schemas.js';

/** Claims in the MCP tool's bounded summary (the whole answer through REST or the CLI). */
export const SUMMARY_CLAIMS = 100;

/** Where professional lines are priced and coverage placed, when the caller says. */
export interface CheckWhere {
  ccn?: string;
  locality?: string;
}

/** What every claim of a file is checked against. */
interface Prepared {
  snapshot: SnapshotReader;
  trace: Trace;
  asOf: string;
  today: string;
  where: CheckWhere;
  payers: PayerKnowledge | null;
  mac: Awaited<ReturnType<typeof macIndex>>;
  x12: Awaited<ReturnType<typeof x12Index>> | null;
  policies: { idx: Awaited<ReturnType<typeof policyIndex>>; version: string } | null;
  memo: FindingContext['memo'];
  /** Payment compositions by code, modifiers, date, place and location. */
  priced: Map<string, Promise<{ allowed: number; program: number | null } | { why: string }>>;
  /** Each claim's payer, by what names it (a file has a few payers and thousands of claims). */
  payersOf: Map<string, ClaimPayer>;
  /** The caller's `ccn` facility, when given: its type decides the place-of-service check. */
  facility: { ccn: string; hospital: boolean; type: string } | null;
  /** Filing deadlines by payer, rule, date, state and as-of date. */
  deadlines: Map<string, ReturnType<typeof filingDeadline>>;
  /** Prior-authorization answers by payer, plan, code, date, state and place. */
  authorizations: Map<string, Promise<Awaited<ReturnType<typeof checkPriorAuth>>>>;
}

async function prepare(snapshot: SnapshotReader, trace: Trace, asOf: string, today: string, where: CheckWhere): Promise<Prepared> {
  const x12 = await x12Index(snapshot).catch(() => null);
  if (x12) trace.use('x12_codes', x12.version || null);
  const payers = await payerKnowledge(snapshot).catch(() => null);
  trace.use('payers', payers?.version || null);
  const mac = await macIndex(snapshot);
  const idx = await policyIndex(snapshot);
  const version = idx.versions.mcd_coverage;
  if (version) trace.use('mcd_coverage', version);
  // A ccn that names nothing is the caller's mistake: 404 before any claim is read.
  const f = where.ccn ? await resolveFacility(snapshot, null, where.ccn, 'reference') : null;
  const facility = f && where.ccn ? { ccn: where.ccn, hospital: isHospitalType(f.effective.facility_type), type: f.effective.facility_type } : null;
  return { snapshot, trace, asOf, today, where, payers, mac, x12, policies: version ? { idx, version } : null, memo: new Map(), priced: new Map(), payersOf: new Map(), authorizations: new Map(), deadlines: new Map(), facility };
}

/** The ncci validate finding kinds as the claim check predicts them. */
function ncciPrediction(f: ClaimFinding): PredictionId | null {
  if (f.kind === 'ptp') return f.edit?.type === 'ptp' && f.edit.modifier_indicator === '0' ? 'ptp_never' : 'ptp_modifier';
  if (f.kind === 'mue') return 'mue';
  if (f.kind === 'aoc') return 'aoc';
  if (f.kind === 'modifier') return 'modifier';
  // The rule that decided (server/ncci/edits/payable_line.ts): a code deleted or not yet in force on the date, else one Medicare does not pay.
  if (f.kind === 'code') return /^(PFS status [DF]|code deleted|code not yet effective)$/.test(f.rule ?? '') ? 'code_invalid_on_date' : 'code_not_payable';
  return null;
}

/**
 * NCCI PTP, MUE and add-on edits and the Medicare code checks of claim validation
 * (`checkClaim`, the same as `POST /v1/ncci/validate`), on the claim's HCPCS lines. A Medicaid
 * claim reads the Medicaid files; a commercial claim gets Medicare's edits as warnings (the payer's
 * own edits are not loaded). No file in force on the dates: nothing decided (`unchecked`).
 */
async function checkNcci(p: Prepared, k: Checking): Promise<void> {
  const { claim } = k;
  const type = k.c.payer.type;
  const byId = new Map<string, number>();
  const lines: ClaimLine[] = [];
  // The line numbers (LX01) name the lines in the edits' messages, unless the file repeats one.
  const unique = new Set(claim.lines.map((l) => l.line_number)).size === claim.lines.length;
  claim.lines.forEach((l, i) => {
    const dos = lineDate(claim, l);
    if (!l.code || (l.code_qualifier !== null && l.code_qualifier !== 'HC') || !dos) return;
    const id = unique ? String(l.line_number) : `#${i + 1}`;
    byId.set(id, i);
    lines.push({ line_id: id, code: l.code, modifiers: l.modifiers.filter((m) => /^[A-Z0-9]{2}$/.test(m)), units: Math.max(1, Math.round(l.units ?? 1)), date_of_service: dos });
  });
  if (lines.length === 0) return;
  const setting = claim.kind === 'institutional' ? 'hosp' : 'prac';
  if (type === 'medicaid' && !k.c.payer.row) {
    k.unchecked.push({ check: 'ncci', reason: 'a Medicaid claim (SBR09 MC) whose program the loaded payer rules do not name: which NCCI edit set applies is not known' });
    return;
  }
  const src = ncciSources(k.c.payer.row, setting);
  try {
    requireClaimDatesCovered(p.snapshot, src, lines);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    k.unchecked.push({ check: 'ncci', reason: e.message });
    return;
  }
  const medicare = type === 'medicare';
  const check = await checkClaim(lines, claimLookups(p.snapshot, src, { medicare }), setting);
  p.trace.useAll(check.versions);
  // A payer whose curated rules say it applies NCCI (or Medicare Advantage, which follows it) is held to it; any other gets Medicare's edits as warnings.
  const commercial = type !== 'medicare' && type !== 'medicaid' && type !== 'medicare_advantage' && !k.c.payer.row?.ncci_edit_set;
  // Only a version in force on the date decides: a file read from its nearest version says nothing.
  for (const d of check.not_in_force) k.unchecked.push({ check: 'ncci', reason: `no ${d} version in force on the claim's dates is loaded: its edits were not applied` });
  for (const f of check.findings) {
    const idx = f.line_ids.map((id) => byId.get(id)!).filter((x) => x !== undefined);
    // A PTP edit denies its column 2 code; every other finding is on its own line.
    const edit = f.edit;
    const on = edit?.type === 'ptp' ? (idx.find((x) => claim.lines[x]!.code === edit.column2) ?? idx.at(-1)!) : idx[0]!;
    const line = claim.lines[on]!;
    const numbers = idx.map((x) => claim.lines[x]!.line_number);
    if (f.edit && check.not_in_force.includes(f.edit.dataset)) {
      k.lineFindings[on]!.push(observed(f.kind, 'no_data', `${f.message} (read from ${f.edit.dataset} ${f.edit.version}, not in force on the date: not decided)`, line.segment, numbers));
      continue;
    }
    if (f.status === 'pass' || f.status === 'bypassed') {
      if (f.kind !== 'code') k.lineFindings[on]!.push(observed(f.kind, 'pass', f.message, line.segment, numbers));
      continue;
    }
    if (f.status === 'no_data') {
      k.lineFindings[on]!.push(observed(f.kind, 'no_data', f.message, line.segment, numbers));
      continue;
    }
    const id = ncciPrediction(f);
    if (!id) continue;
    const status = commercial ? 'warn' : f.status === 'warn' ? 'warn' : 'fail';
    const message = commercial ? `${f.message} (Medicare's edit: the payer's own edits are not loaded, and it may apply NCCI)` : f.message;
    const citations = f.citation?.url ? [{ title: f.citation.title, url: f.citation.url }] : [];
    const ptp = f.edit?.type === 'ptp' ? f.edit.modifier_indicator : null;
    const mai = f.edit?.type === 'mue' ? f.edit.mue_adj_ind : null;
    k.lineFindings[on]!.push(predicted(k.c, id, { status, message, segment: line.segment, lines: numbers, citations, facts: { dateOfService: lineDate(claim, line), modifiers: line.modifiers, ptp, mai } }));
  }
}

/**
 * Prior authorization: the payer's curated rules for each line's code (as `GET
 * /v1/prior-auth/check` answers); required and no REF*G1 on the claim or the line: CO-197.
 */
async function checkAuthorization(p: Prepared, k: Checking): Promise<void> {
  const { claim } = k;
  const payer = k.c.payer.row;
  if (!payer || !p.payers) {
    k.unchecked.push({ check: 'prior_auth', reason: 'the payer (2010BB NM1*PR) is not one the loaded payer rules name' });
    return;
  }
  const state = claim.service_facility?.state ?? claim.billing_provider?.state ?? undefined;
  for (const [i, l] of claim.lines.entries()) {
    const dos = lineDate(claim, l);
    if (!l.code || !dos) continue;
    const query = { code: l.code, date_of_service: dos, state, place_of_service: l.place_of_service ?? undefined, plan_type: k.c.payer.planType };
    const key = [payer.slug, ...Object.values(query)].join('|');
    let pending = p.authorizations.get(key);
    // The reference rules alone: the claim check reads no tenant state.
    if (!pending) p.authorizations.set(key, (pending = checkPriorAuth(p.snapshot, null, { knowledge: p.payers, payer, query, today: p.today }, new Trace(p.snapshot, () => new Date(0)))));
    const a = await pending;
    const authorized = l.prior_authorization ?? claim.prior_authorization;
    const cite = a.source?.citation?.url ? [{ title: a.source.citation.title, url: a.source.citation.url }] : [];
    if (a.determination === 'required' && !authorized) {
      k.lineFindings[i]!.push(predicted(k.c, 'prior_auth', { message: `${payer.slug} requires authorization for ${l.code}${a.source ? ` (rule ${a.source.id})` : ''}, and neither the claim nor the line names one (REF*G1)`, segment: l.segment, lines: [l.line_number], facts: { dateOfService: dos }, citations: cite }));
    } else if (a.determination === 'conditional' && !authorized) {
      k.lineFindings[i]!.push(predicted(k.c, 'prior_auth', { status: 'warn', message: `${payer.slug} requires authorization for ${l.code} in some cases${a.source ? ` (rule ${a.source.id})` : ''}: ${a.rationale_chain.at(-1)?.detail ?? 'see its rule'}`, segment: l.segment, lines: [l.line_number], facts: { dateOfService: dos }, citations: cite }));
    } else if (a.determination !== 'unknown') {
      k.lineFindings[i]!.push(observed('prior_auth', 'pass', a.determination === 'required' ? `authorization ${authorized} is named for ${l.code}` : `${payer.slug} requires no authorization for ${l.code}`, l.segment, [l.line_number], cite));
    }
  }
}

/** Where a professional line is priced: the caller's locality, else the service facility's ZIP, else the billing provider's. */
async function locate(p: Prepared, claim: Claim): Promise<{ locality?: string; ccn?: string } | { why: string }> {
  if (claim.kind === 'institutional') return p.where.ccn ? { ccn: p.where.ccn } : { why: 'an outpatient hospital line is priced at its hospital: pass ccn' };
  if (p.where.locality) return { locality: p.where.locality };
  if (p.where.ccn) return { ccn: p.where.ccn };
  const zip = claim.service_facility?.zip ?? claim.billing_provider?.zip ?? null;
  if (!zip) return { why: 'no ccn or locality given and the claim names no service facility or billing provider ZIP' };
  const [hit] = await findLocalityForZip(p.snapshot, zip);
  if (hit) p.trace.use('zip_locality', hit.version);
  return hit ? { locality: hit.locality } : { why: `the ZIP ${zip.slice(0, 5)} is not in zip_locality${p.snapshot.has('zip_locality') ? '' : ' (not loaded)'}; pass ccn or locality` };
}

/** One line's payment composition, as `GET /v1/codes/{code}/payment` answers it (per unit). */
function priceLine(p: Prepared, claim: Claim, l: Line, dos: string, at: { locality?: string; ccn?: string }) {
  const modifiers = l.modifiers.filter((m) => /^[A-Z0-9]{2}$/.test(m)).slice(0, 4);
  const pos = claim.kind === 'professional' ? (l.place_of_service ?? claim.place_of_service) : null;
  const key = [claim.kind, l.code, modifiers.join(','), dos, pos, at.locality, at.ccn].join('|');
  let r = p.priced.get(key);
  if (!r) {
    r = (async () => {
      const t = new Trace(p.snapshot, () => new Date(0));
      try {
        const c = await paymentFor(p.snapshot, null, { code: l.code!, date_of_service: dos, ...(modifiers.length ? { modifier: modifiers } : {}), ...(pos && /^\d{2}$/.test(pos) ? { place_of_service: pos } : {}), ...at }, p.today, t);
        p.trace.useAll(t.versions);
        const allowed = claim.kind === 'institutional' ? (c.outpatient_facility?.allowed_fac_payment ?? null) : (c.physician?.allowed_phy_payment ?? null);
        if (allowed === null) return { why: `${l.code} has no ${claim.kind === 'institutional' ? 'OPPS' : 'physician fee schedule'} amount${t.warnings.length ? `: ${t.warnings[0]}` : ''}` };
        return { allowed, program: c.beneficiary_cost_sharing?.program_payment ?? null };
      } catch (e) {
        if (!(e instanceof NotFoundError) && !(e instanceof ValidationError)) throw e;
        return { why: e instanceof ValidationError && e.issues?.length ? e.issues.map((i) => i.msg).join('; ') : e.message };
      }
    })();
    p.priced.set(key, r);
  }
  return r;
}

/** Each Medicare line's expected allowed amount and the claim's sums (the deductible taken as met). */
async function priceClaim(p: Prepared, k: Checking): Promise<{ lines: (number | null)[]; allowed: number | null; payment: number | null }> {
  const { claim } = k;
  const none = { lines: claim.lines.map(() => null), allowed: null, payment: null };
  if (k.c.payer.type !== 'medicare') {
    k.unchecked.push({ check: 'pricing', reason: `the payer is not Medicare fee-for-service (${k.c.payer.type ?? 'unknown'}): its contract prices the lines, and its rates are not loaded` });
    return none;
  }
  const at = await locate(p, claim);
  if ('why' in at) {
    k.unchecked.push({ check: 'pricing', reason: at.why });
    return none;
  }
  const out: (number | null)[] = [];
  let allowed: Dec | null = Dec.of(0);
  let payment: Dec | null = Dec.of(0);
  const why = new Set<string>();
  for (const l of claim.lines) {
    const dos = lineDate(claim, l);
    const r = l.code && dos ? await priceLine(p, claim, l, dos, at) : { why: `line ${l.line_number} has no HCPCS code or date` };
    if ('why' in r) {
      why.add(r.why);
      out.push(null);
      allowed = payment = null;
      continue;
    }
    const units = Dec.of(Math.max(1, l.units ?? 1));
    const line = Dec.of(r.allowed).mul(units);
    out.push(toCents(line));
    if (allowed) allowed = allowed.add(line);
    if (payment) payment = r.program === null ? null : payment.add(Dec.of(r.program).mul(units));
  }
  for (const w of why) k.unchecked.push({ check: 'pricing', reason: w });
  return { lines: out, allowed: allowed ? toCents(allowed) : null, payment: payment ? toCents(payment) : null };
}

/** The claim checked by every unit, as answered. */
/** The claim's payer (as a remittance's is found) and program (SBR09), once per payer name, id and indicator. */
function payerOf(p: Prepared, claim: Claim): ClaimPayer {
  const key = [claim.payer.name, claim.payer.id, claim.subscriber.filing_indicator].join('|');
  let payer = p.payersOf.get(key);
  if (!payer) {
    const tx = identifyPayer(p.payers, p.mac, { name: claim.payer.name, id: claim.payer.id, ids: [claim.payer.id] });
    p.payersOf.set(key, (payer = claimPayer(tx, claim.subscriber.filing_indicator, p.payers)));
  }
  return payer;
}

async function checkOne(p: Prepared, claim: Claim): Promise<CheckedClaim> {
  const payer = payerOf(p, claim);
  const k: Checking = { claim, c: { payers: p.payers, x12: p.x12, payer, asOf: p.asOf, memo: p.memo }, findings: [], lineFindings: claim.lines.map(() => []), unchecked: [], diagnoses: [] };
  const first = claim.lines.map((l) => lineDate(claim, l)).filter((d): d is string => !!d).sort()[0] ?? null;
  checkStructure(k, first);
  await checkDiagnoses(p.snapshot, k, first);
  await checkHcpcsValidity(p.snapshot, k, p.trace);
  await checkNcci(p, k);
  if (payer.type === 'medicare' && p.policies) checkCoverage(p.policies.idx, p.policies.version, k);
  else if (payer.type === 'medicare') k.unchecked.push({ check: 'coverage', reason: 'mcd_coverage is not loaded' });
  checkDuplicateLines(k);
  if (p.facility) checkPlaceOfService(k, p.facility);
  await checkNdcs(p.snapshot, k);
  await checkAuthorization(p, k);
  const submitBy = checkTimelyFiling(k, first, claim.service_facility?.state ?? claim.billing_provider?.state ?? null, p.deadlines);
  const priced = await priceClaim(p, k);
  const all = [...k.findings, ...k.lineFindings.flat()];
  const status = all.some((f) => f.status === 'fail' || f.status === 'warn') ? 'issues' : k.unchecked.length || all.some((f) => f.status === 'no_data') ? 'incomplete' : 'clean';
  return {
    transaction: claim.transaction.index,
    segment: claim.segment,
    kind: claim.kind,
    patient_control_number: claim.patient_control_number,
    payer: { name: claim.payer.name, id: claim.payer.id, slug: payer.row?.slug ?? null, type: payer.type, filing_indicator: claim.subscriber.filing_indicator },
    frequency: claim.frequency,
    type_of_bill: claim.type_of_bill,
    place_of_service: claim.place_of_service,
    billing_provider: claim.billing_provider ? { npi: claim.billing_provider.npi, name: claim.billing_provider.name, state: claim.billing_provider.state } : null,
    total_charge: claim.total_charge === null ? null : toCents(Dec.of(claim.total_charge)),
    diagnoses: k.diagnoses,
    findings: k.findings,
    lines: claim.lines.map((l, i) => ({
      line_number: l.line_number,
      segment: l.segment,
      code: l.code,
      revenue_code: l.revenue_code,
      modifiers: l.modifiers,
      units: l.units,
      charged: l.charged === null ? null : toCents(Dec.of(l.charged)),
      date_of_service: lineDate(claim, l),
      diagnosis_pointers: l.diagnosis_pointers,
      control_number: l.control_number,
      findings: k.lineFindings[i]!,
      expected_allowed: priced.lines[i] ?? null,
    })),
    expected_allowed: priced.allowed,
    expected_payment: priced.payment,
    submit_by: submitBy,
    status,
    unchecked: k.unchecked,
  };
}

/** The reader's errors as the API's 422 (`ValidationError`), naming segments, never the file's text. */
export function readClaims(bytes: Buffer | string): ReturnType<typeof read837> {
  try {
    return read837(bytes);
  } catch (e) {
    if (e instanceof X12Error) throw new ValidationError(e.issues);
    throw e;
  }
}

/** Duplicates across the claims of one file: the same patient, code, date and modifiers on two claims (replacements and voids aside). */
class CrossClaims {
  private seen = new Map<string, { pcn: string; line: number; segment: number }>();
  readonly findings: ClaimsCheck['cross_claim_findings'] = [];
  add(c: FindingContext, claim: Claim): void {
    if (claim.frequency === '7' || claim.frequency === '8') return;
    for (const l of claim.lines) {
      const key = serviceKey(claim, l);
      if (!key) continue;
      const first = this.seen.get(key);
      const here = { pcn: claim.patient_control_number, line: l.line_number, segment: l.segment };
      if (!first) {
        this.seen.set(key, here);
        continue;
      }
      if (first.pcn === here.pcn) continue;
      const f = predicted(c, 'duplicate', { message: `claim ${here.pcn} line ${here.line} bills ${l.code} on ${lineDate(claim, l)} for the same patient as claim ${first.pcn} line ${first.line}`, segment: l.segment, facts: { dateOfService: lineDate(claim, l) } });
      this.findings.push({ kind: 'duplicate', status: 'fail', message: f.message, fix: f.fix!, if_sent: f.if_sent!, citations: f.citations, claims: [first, here].map((x) => ({ patient_control_number: x.pcn, line_number: x.line, segment: x.segment })) });
    }
  }
}

/**
 * The one way an 837 is checked (the route, the MCP tool and `rcm claim check`): read it, check
 * each claim against the snapshot as of `asOf` (structure, codes and diagnoses, HCPCS Level II
 * validity on the date, NCCI, coverage,
 * duplicates, prior authorization, timely filing) and price its Medicare lines as the payment
 * route does. Throws the reader's 422 for a file that is not a readable 5010 837. Nothing is
 * stored or logged: the file carries PHI. `summary`: at most `SUMMARY_CLAIMS` claims, `truncated`.
 */
export async function checkClaims(snapshot: SnapshotReader, bytes: Buffer | string, o: { asOf: string; today: string; where: CheckWhere; trace: Trace; summary?: boolean }): Promise<ClaimsCheck> {
  const file = readClaims(bytes);
  const p = await prepare(snapshot, o.trace, o.asOf, o.today, o.where);
  const claims: CheckedClaim[] = [];
  const cross = new CrossClaims();
  const periods = new GlobalPeriods(snapshot);
  const predicted: Record<string, number> = {};
  const counts = { clean: 0, issues: 0, incomplete: 0, fail: 0, warn: 0 };
  // Each finding counted once: its status, and the adjustment it predicts.
  const tally = (f: Pick<ClaimCheckFinding, 'status' | 'if_sent'>) => {
    if (f.status === 'fail') counts.fail++;
    if (f.status === 'warn') counts.warn++;
    const label = predictionLabel(f);
    if (label) predicted[label] = (predicted[label] ?? 0) + 1;
  };
  let allowed = Dec.of(0);
  let n = 0;
  for (const claim of file.each()) {
    const checked = await checkOne(p, claim);
    n++;
    counts[checked.status]++;
    if (checked.expected_allowed !== null) allowed = allowed.add(Dec.of(checked.expected_allowed));
    for (const f of [...checked.findings, ...checked.lines.flatMap((l) => l.findings)]) tally(f);
    const c = { payers: p.payers, x12: p.x12, payer: payerOf(p, claim), asOf: p.asOf, memo: p.memo };
    cross.add(c, claim);
    await periods.add(c, claim, (l) => lineDate(claim, l));
    if (!o.summary || claims.length < SUMMARY_CLAIMS) claims.push(checked);
  }
  cross.findings.push(...periods.findings());
  for (const f of cross.findings) tally(f);
  if (o.summary && n > SUMMARY_CLAIMS) o.trace.warn(`a summary: the first ${SUMMARY_CLAIMS} of ${n} claims; the whole answer comes from POST /v1/claims/check or \`rcm claim check\` with the same file`);
  o.trace.warn('expected_payment takes the year\'s Part B deductible as met');
  return {
    claims,
    cross_claim_findings: cross.findings,
    file_findings: [...file.findings.map((f) => ({ code: f.code, message: f.message, segment: f.segment_index })), ...file.issues.map((i) => ({ code: i.code, message: `${i.message} (loop ${i.loop})`, segment: i.segment }))],
    summary: { claims: n, ...counts, predicted, expected_allowed: toCents(allowed), truncated: !!o.summary && n > SUMMARY_CLAIMS },
    reliability: o.trace.reliability(),
  };
}
