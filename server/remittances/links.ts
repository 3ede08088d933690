import { Dec, toCents } from '../../datasets/_shared/decimal.js';
import { lookupMueInDataset } from '../../datasets/_ncci_mue/queries.js';
import { ptpPairFinder } from '../../datasets/_ncci_ptp/queries.js';
import { ANY_PRIMARY } from '../../datasets/ncci_aoc/dataset.js';
import { aocEditsOn } from '../../datasets/ncci_aoc/queries.js';
import { lookupGpci } from '../../datasets/gpci/queries.js';
import { findNpi, nppesVersion } from '../../datasets/nppes/queries.js';
import type { PayerKnowledge } from '../../datasets/payers/queries.js';
import type { PayerRow } from '../../datasets/payers/schema.js';
import { findLocalityForZip } from '../../datasets/zip_locality/queries.js';
import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { RemedyCitation } from '../denials/remedy.js';
import { carcClassOf } from '../../lib/vocabulary/carc.js';
import { rarcMeaningOf } from '../../lib/vocabulary/rarc.js';
import { compApcExclusionsIn, COMPREHENSIVE_SI, PACKAGING_SI } from '../../lib/vocabulary/opps_packaging.js';
import { PREVENTIVE_NO_COST_SHARING } from '../payment/calculate.js';
import { resolveFacility, type Facility } from '../facilities/service.js';
import { ncciSources, type NcciSources } from '../ncci/sources.js';
import { MUE_ADJUDICATION_CITATION, mueWhenExceeded, NCCI_POLICY_MANUAL } from '../ncci/validate.js';
import { paymentFor } from '../payment/service.js';
import { findOppsRatesIn } from '../../datasets/opps_addendum_b/queries.js';
import { MEDICARE_FFS, policyPayer, policyRulesFor, coveredDiagnoses, policyIndex, type PolicyPayer } from '../policies/service.js';
import { Trace } from '../trace.js';
import type { CoverageLink, LinePricing, MueLink, NcciLink, RemitClaim, RemitLine, RemitTransaction } from './schemas.js';

/** Told every `PROGRESS_EVERY` claims linked, with the file's claim count (the CLI's progress line). */
export type Progress = (claimsDone: number, claims: number) => void;
export const PROGRESS_EVERY = 1000;

/** Where the payee is, as the route's query gives it (ccn wins over locality). */
export interface PayeeLocation {
  ccn?: string;
  locality?: string;
}

/** What a line's adjustments and remarks ask the links for, by the vocabulary's classes and meanings. */
function linksWanted(carcs: Set<string>, rarcs: Set<string>): { ptp: boolean; aoc: boolean; mue: boolean; coverage: boolean } {
  const classes = new Set([...carcs].map(carcClassOf));
  const meanings = new Set([...rarcs].map(rarcMeaningOf));
  return {
    ptp: classes.has('bundling') || meanings.has('bundled'),
    aoc: classes.has('add_on') || meanings.has('add_on_alone'),
    mue: classes.has('units') || meanings.has('units_exceeded'),
    coverage: classes.has('coverage'),
  };
}

const PTP_PAGE = {
  medicare: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-procedure-procedure-ptp-edits',
  medicaid: 'https://www.medicaid.gov/medicaid/program-integrity/national-correct-coding-initiative/medicaid-ncci-edit-files/index.html',
} as const;
const MUE_PAGE = {
  medicare: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-medically-unlikely-edits',
  medicaid: PTP_PAGE.medicaid,
} as const;
const AOC_PAGE = 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-add-code-edits';

const TABLE_OF = { prac: 'practitioner', hosp: 'hospital' } as const;

/** Types of bill (first two digits) a hospital's Part B outpatient services are paid on under the OPPS. */
const OPPS_BILL_TYPES: ReadonlySet<string> = new Set(['12', '13', '14']);

/** Notes of the payment composition's other blocks, left off a line's pricing notes. */
const OTHER_BLOCKS = { prac: /^(outpatient_facility|lab|dme):/, hosp: /^(physician|lab|dme):/ } as const;

/** The calendar year of an OPPS Addendum B version (its effective date's). */
function yearOfOpps(snapshot: SnapshotReader, version: string): number | null {
  const v = snapshot.versions('opps_addendum_b').find((x) => x.version === version);
  const d = v?.effective_date ?? null;
  return d ? Number(d.slice(0, 4)) : null;
}

/** Warnings said once per answer: a file's every denied line would repeat its version's note. */
const warned = new WeakMap<Trace, Set<string>>();
function warnOnce(trace: Trace, message: string | undefined): void {
  if (!message) return;
  let seen = warned.get(trace);
  if (!seen) warned.set(trace, (seen = new Set()));
  if (!seen.has(message)) {
    seen.add(message);
    trace.warn(message);
  }
}

/** A claim is institutional when Part A files it (MA) or a line carries a revenue code (837I lines do). */
function settingOf(c: RemitClaim): 'prac' | 'hosp' {
  return c.claim_filing_indicator === 'MA' || c.lines.some((l) => l.revenue_code !== null || l.code_qualifier === 'NU') ? 'hosp' : 'prac';
}

/** HCPCS/CPT codes only: NCCI edits and the fee schedule name no revenue or dental codes. */
const hcpcsOf = (l: RemitLine): string | null => (l.code && (l.code_qualifier === 'HC' || l.code_qualifier === null) ? l.code : null);

const dosOf = (c: RemitClaim, l: RemitLine): string | null => l.service_from ?? c.statement_from ?? null;

/**
 * The per-line links of an explained 835, claim by claim as the explanation reads them: on
 * a bundling denial the NCCI PTP edit behind it (or the add-on edit on a B15), on a units denial
 * the MUE, and on every HCPCS line the allowed amount judged against the Medicare fee schedule.
 * Fields are set only where they apply. Every dataset read is recorded on `trace`.
 */
export class Linker {
  private readonly pricer: Pricer;
  // A day's file repeats the same bundled pair thousands of times: each distinct one is looked up
  // once and its link shared (the answer is read-only from here on).
  private readonly ptpLinks = new Map<string, Promise<NcciLink>>();
  private readonly coverageLinks = new Map<string, Promise<CoverageLink>>();
  private done = 0;

  constructor(
    private readonly snapshot: SnapshotReader,
    private readonly payers: PayerKnowledge | null,
    where: PayeeLocation,
    private readonly trace: Trace,
    /** The file's claim count and a listener told every `PROGRESS_EVERY` claims. */
    private readonly progress?: { total: number; tell: Progress },
  ) {
    this.pricer = new Pricer(snapshot, where, trace);
  }

  /** A ccn or locality that names nothing is the caller's mistake: 422 before any line is linked. */
  check(): Promise<void> {
    return this.pricer.checkQuery();
  }

  /** Sets each line's `ncci`, `mue`, `coverage` and `pricing` where they apply. */
  async link(tx: RemitTransaction, claim: RemitClaim): Promise<void> {
    const { snapshot, payers, trace, pricer } = this;
    if (this.progress && ++this.done % PROGRESS_EVERY === 0) this.progress.tell(this.done, this.progress.total);
    const txPayer = tx.payer.slug ? (payers?.payers.get(tx.payer.slug) ?? null) : null;
    const program = claim.claim_filing_indicator === 'MC' ? 'medicaid' : claim.claim_filing_indicator === 'MA' || claim.claim_filing_indicator === 'MB' ? 'medicare' : null;
    const setting = settingOf(claim);
    const sources = sourcesFor(program, txPayer, payers, setting);
    for (const line of claim.lines) {
      const code = hcpcsOf(line);
      if (!code) continue;
      const carcs = new Set(line.adjustments.map((a) => a.reason.toUpperCase()));
      // The line's remarks, else the claim's (MOA/MIA), as the explanation reads them.
      const rarcs = new Set((line.remarks.length ? line.remarks : claim.remarks).map((r) => r.code));
      const dos = dosOf(claim, line);
      const want = linksWanted(carcs, rarcs);
      if (dos && want.ptp) {
        const others = othersOnDate(claim, line, code, dos);
        const key = `${sources.ptp}|${code}|${dos}|${others.join(',')}`;
        let link = this.ptpLinks.get(key);
        if (!link) this.ptpLinks.set(key, (link = ptpLink(snapshot, sources, others, code, dos, trace)));
        line.ncci = await link;
      } else if (dos && want.aoc) {
        const aoc = await aocLink(snapshot, sources, claim, code, dos, trace);
        if (aoc) line.ncci = aoc;
      }
      if (dos && want.mue) line.mue = await mueLink(snapshot, sources, line, code, dos, trace);
      if (dos && want.coverage) {
        // The payer's documents: the mapped payer's, else Medicare's for a Medicare claim.
        const payer = txPayer ? policyPayer(txPayer) : program === 'medicare' ? { slug: MEDICARE_FFS, medicare: true } : null;
        const key = `${payer?.slug ?? ''}|${code}|${dos}|${tx.payee.npi ?? ''}`;
        let link = this.coverageLinks.get(key);
        if (!link) this.coverageLinks.set(key, (link = pricer.payeeState(tx.payee.npi).then((at) => coverageLink(snapshot, payer, code, dos, at, trace))));
        line.coverage = await link;
      }
      const priced = pricer.price(tx.payee.npi, claim, line, code, setting);
      line.pricing = priced instanceof Promise ? await priced : priced;
    }
    if (setting === 'hosp') packageIntoComprehensiveApc(claim);
  }

  /** Says on the trace what the pricing fell back on. */
  finish(): void {
    this.pricer.finish();
  }
}

/** Anesthesia codes (CPT 00100-01999): paid on base plus time units, their units the minutes. */
const isAnesthesiaCode = (code: string): boolean => /^0[01]\d{3}$/.test(code) && code >= '00100' && code <= '01999';

/**
 * A priced line's status: a line allowed nothing is never over- or underpaid (its adjustments say
 * why: `line_denied`, unless nothing was expected either); else within a cent per unit is as
 * expected (the fee schedule is rounded per unit, payers per line).
 */
function judgePricing(allowed: number, expected: Dec, units: Dec): LinePricing['status'] {
  if (allowed === 0) return expected.compare(0) === 0 ? 'as_expected' : 'not_priced';
  const diff = Dec.of(allowed).sub(expected);
  const abs = diff.compare(0) < 0 ? Dec.of(0).sub(diff) : diff;
  return abs.compare(Dec.of('0.01').mul(units)) <= 0 ? 'as_expected' : diff.compare(0) < 0 ? 'underpaid' : 'overpaid';
}

/** What a line allowed nothing says beside its expected amount. */
const DENIED = (setting: 'prac' | 'hosp', priced: { expected_allowed: number | null }) => ({
  reason: 'line_denied' as const,
  reason_text: `the line was allowed nothing: its adjustments (and any ncci or mue link) explain the denial; expected_allowed (${priced.expected_allowed}) is what the ${setting === 'hosp' ? 'OPPS' : 'fee schedule'} pays`,
  difference: null,
});

/**
 * On an outpatient claim with a comprehensive APC line (SI J1), the OPPS pays the claim once on
 * that line and packages every other OPPS service, except what the year's comprehensive-APC rules
 * exclude (lib/vocabulary/opps_packaging.ts): each other priced line is expected 0, with a note.
 * Pricings are shared between lines, so a packaged line gets a new one.
 */
function packageIntoComprehensiveApc(claim: RemitClaim): void {
  const primary = claim.lines.findIndex((l) => l.pricing?.status_indicator === PACKAGING_SI);
  if (primary < 0) return;
  const p0 = claim.lines[primary]!.pricing!;
  const rules = p0.date_of_service ? compApcExclusionsIn(Number(p0.date_of_service.slice(0, 4))) : undefined;
  if (!rules) return;
  claim.lines.forEach((l, i) => {
    const p = l.pricing;
    if (i === primary || !p || p.expected_allowed === null || (p.status === 'not_priced' && p.reason !== 'line_denied')) return;
    const excluded = (p.status_indicator !== null && rules.status_indicators.includes(p.status_indicator)) || (l.revenue_code !== null && rules.revenue_codes.includes(l.revenue_code.padStart(4, '0'))) || (rules.preventive && l.code !== null && PREVENTIVE_NO_COST_SHARING.has(l.code));
    if (excluded) return;
    const note = `packaged into the comprehensive APC of line ${primary + 1} (${claim.lines[primary]!.code}, SI ${p0.status_indicator}): expected 0 separately (${rules.citation.title})`;
    const { reason: _reason, reason_text: _text, ...rest } = p;
    l.pricing = { ...rest, status: judgePricing(l.allowed, Dec.of(0), Dec.of(1)), expected_allowed: 0, expected_per_unit: 0, difference: l.allowed, notes: [...p.notes, note] };
  });
}

/** The NCCI files of a claim: Medicare for MA/MB, the Medicaid edit set for MC, else the payer's (Medicare as the reference). */
function sourcesFor(program: 'medicare' | 'medicaid' | null, txPayer: PayerRow | null, payers: PayerKnowledge | null, setting: 'prac' | 'hosp'): NcciSources {
  if (program === 'medicare') return ncciSources(null, setting);
  if (program === 'medicaid') {
    const medicaid = txPayer?.ncci_edit_set === 'medicaid' ? txPayer : (payers?.payers.get('medicaid') ?? null);
    const s = ncciSources(medicaid, setting);
    if (s.program === 'medicaid') return s;
    return { ...s, program: 'medicaid', ptp: `medicaid_ptp_${setting}`, mue: setting === 'prac' ? 'medicaid_mue_prac' : 'medicaid_mue_hosp', warning: undefined };
  }
  return ncciSources(txPayer, setting);
}

function ptpCitations(s: NcciSources, version: string | null, file: string | undefined): RemedyCitation[] {
  const what = `${s.program === 'medicaid' ? 'Medicaid' : 'Medicare'} NCCI PTP edits, ${TABLE_OF[s.setting]} table${version ? `, version ${version}` : ''}${file ? ` (${file})` : ''}`;
  return [{ title: what, url: PTP_PAGE[s.program] }, NCCI_POLICY_MANUAL];
}

/** The other HCPCS codes of the claim on the line's date: the candidates for column 1. */
function othersOnDate(claim: RemitClaim, line: RemitLine, code: string, dos: string): string[] {
  return [...new Set(claim.lines.filter((l) => l !== line && dosOf(claim, l) === dos).map(hcpcsOf).filter((c): c is string => c !== null && c !== code))];
}

async function ptpLink(snapshot: SnapshotReader, s: NcciSources, others: string[], code: string, dos: string, trace: Trace): Promise<NcciLink> {
  const find = await ptpPairFinder(snapshot, s.ptp, [code, ...others], dos);
  const lookups = others.map((c) => find(c, code));
  const choice = lookups[0]?.choice ?? find(code, code).choice;
  trace.use(s.ptp, choice?.version.version ?? null);
  if (choice && !choice.covered) trace.degrade();
  warnOnce(trace, choice?.warning);
  warnOnce(trace, s.warning);
  const version = choice?.version.version ?? null;
  const hit = lookups.find((l) => l.status === 'active' && l.row!.column2 === code && l.row!.modifier_indicator === '0') ?? lookups.find((l) => l.status === 'active' && l.row!.column2 === code);
  // An edit pairing the codes that was not in force on the date (or is indicator 9): the payer may have applied it anyway.
  const outOfForce = hit ? undefined : lookups.find((l) => l.row && l.row.column2 === code && l.status !== 'active');
  const base = { edit: 'ptp' as const, program: s.program, table: TABLE_OF[s.setting], dataset: s.ptp, version, version_in_force: !!choice?.covered, date_of_service: dos, column2: code };
  const citations = ptpCitations(s, version, choice?.version.source_files[0]?.name);
  const found = hit ?? outOfForce;
  if (!found) {
    const why = !choice ? `no ${s.ptp} version is loaded` : others.length === 0 ? 'no other code on the claim on that date' : `no ${s.program === 'medicaid' ? 'Medicaid' : 'Medicare'} PTP edit in force on ${dos} has ${code} as column 2 of ${others.join(', ')} (version ${version})`;
    return {
      ...base,
      column1: null,
      modifier_indicator: null,
      edit_status: choice ? 'no_edit' : 'no_data',
      edit_effective: null,
      edit_deleted: null,
      rationale: null,
      explanation: `${why}: the bundling is the payer's own edit or policy, not an NCCI PTP edit in the loaded files`,
      citations,
    };
  }
  const r = found.row!;
  const mi = r.modifier_indicator as '0' | '1' | '9';
  const status = found.status as 'active' | 'deleted' | 'not_yet_effective' | 'not_applicable';
  const explanation =
    status === 'deleted' || status === 'not_yet_effective'
      ? `${code} is column 2 of ${r.column1} in an edit that was not in force on ${dos} (effective ${r.effective_date ?? '?'}${r.deletion_date ? `, deleted after ${r.deletion_date}` : ''})`
      : status === 'not_applicable'
        ? `${code} and ${r.column1}: the edit's modifier indicator is 9 (not applicable): it does not bundle them`
        : mi === '1'
          ? `${code} is column 2 of ${r.column1} (modifier indicator 1): an NCCI-associated modifier (59 or XE, XP, XS, XU; an anatomic modifier) bypasses it when the record supports a distinct service; otherwise it is bundled into ${r.column1}`
          : `${code} is column 2 of ${r.column1} (modifier indicator 0): not payable with ${r.column1} on the same date; no modifier overrides the edit`;
  return { ...base, column1: r.column1, modifier_indicator: mi, edit_status: status, edit_effective: r.effective_date, edit_deleted: r.deletion_date, rationale: r.rationale, explanation, citations };
}

async function aocLink(snapshot: SnapshotReader, s: NcciSources, claim: RemitClaim, code: string, dos: string, trace: Trace): Promise<NcciLink | null> {
  const on = await aocEditsOn(snapshot, dos);
  trace.use('ncci_aoc', on?.used.version ?? null);
  if (!on) return null;
  if (!on.used.covered) trace.degrade();
  warnOnce(trace, on.used.warning);
  const rows = on.asAddon(code);
  if (rows.length === 0) return null;
  const primaries = [...new Set(rows.map((r) => r.primary_code))];
  const onClaim = [...new Set(claim.lines.map(hcpcsOf).filter((c): c is string => c !== null && primaries.includes(c)))];
  const named = primaries.filter((p) => p !== ANY_PRIMARY);
  const r = rows[0]!;
  return {
    edit: 'aoc',
    program: s.program,
    table: TABLE_OF[s.setting],
    dataset: 'ncci_aoc',
    version: on.used.version,
    version_in_force: on.used.covered,
    date_of_service: dos,
    column1: null,
    column2: code,
    modifier_indicator: null,
    edit_effective: r.aoc_edit_eff_dt,
    edit_deleted: r.aoc_edit_del_dt,
    rationale: r.special_instruction_notes ?? null,
    primary_codes: primaries,
    primaries_on_claim: onClaim,
    edit_status: 'active',
    explanation: named.length
      ? `${code} is an add-on code: it is paid only with one of its primary codes (${named.slice(0, 20).join(', ')}${named.length > 20 ? ', ...' : ''}) by the same practitioner on the same date${onClaim.length ? `; ${onClaim.join(', ')} is on this claim, so ask the payer why it was not matched` : '; bill it with the primary service'}`
      : `${code} is an add-on code whose primary codes the contractor decides (type 2): bill it with the primary service the contractor accepts`,
    citations: [{ title: `CMS NCCI add-on code edits, version ${on.used.version}${on.used.source_file ? ` (${on.used.source_file})` : ''}`, url: AOC_PAGE }],
  };
}

async function mueLink(snapshot: SnapshotReader, s: NcciSources, line: RemitLine, code: string, dos: string, trace: Trace): Promise<MueLink> {
  const l = await lookupMueInDataset<{ proc_cd: string; mue_value: number; mue_adj_ind?: number | null; mue_adj_ind_label?: string | null; mue_rationale: string | null }>(snapshot, s.mue as Parameters<typeof lookupMueInDataset>[1], s.mueType, code, dos);
  trace.use(s.mue as Parameters<Trace['use']>[0], l?.used.version ?? null);
  if (l && !l.used.covered) trace.degrade();
  warnOnce(trace, l?.used.warning);
  const row = l?.row ?? null;
  const mai = row && s.program === 'medicare' && row.mue_adj_ind ? (row.mue_adj_ind as 1 | 2 | 3) : null;
  return {
    program: s.program,
    table: TABLE_OF[s.setting],
    dataset: s.mue,
    version: l?.used.version ?? null,
    version_in_force: !!l?.used.covered,
    date_of_service: dos,
    code,
    mue_value: row?.mue_value ?? null,
    mai,
    mai_label: (mai && row?.mue_adj_ind_label) || null,
    rationale: row?.mue_rationale ?? null,
    units_billed: line.units,
    exceeded: row ? line.units > row.mue_value : null,
    when_exceeded: mai ? mueWhenExceeded(mai) : null,
    citations: [{ title: `${s.program === 'medicaid' ? 'Medicaid' : 'Medicare'} NCCI MUEs, ${TABLE_OF[s.setting]} table${l ? `, version ${l.used.version}${l.used.source_file ? ` (${l.used.source_file})` : ''}` : ''}`, url: MUE_PAGE[s.program] }, ...(mai ? [MUE_ADJUDICATION_CITATION] : [])],
  };
}

/**
 * The coverage documents behind a medical-necessity denial: the one policy lookup payment
 * composition uses (`policyRulesFor`: Medicare billing articles and LCDs listing the code in the
 * payee's MAC jurisdictions, the payer's curated rules), and what they mean for the appeal.
 */
async function coverageLink(snapshot: SnapshotReader, payer: PolicyPayer | null, code: string, dos: string, at: PayeeState, trace: Trace): Promise<CoverageLink> {
  const rules = payer ? await policyRulesFor(snapshot, { payer, code, date: dos, state: at.state }, trace) : [];
  const idx = rules.some((r) => r.kind === 'article') ? await policyIndex(snapshot) : null;
  const lists = rules.filter((r) => r.kind === 'article').map((r) => ({ doc_id: r.doc_id, covered_count: coveredDiagnoses(idx!, r.doc_id).length })).filter((l) => l.covered_count > 0);
  const where = at.state ? ` in ${at.state}` : '';
  const ids = [...new Set(rules.map((r) => r.doc_id))].join(', ');
  const explanation = !payer
    ? `the payer is not mapped to a curated payer and the claim is not Medicare's: its own medical policy decides ${code}; appeal with the records that support the service`
    : lists.length
      ? `${ids} list${rules.length === 1 ? 's' : ''} ${code}${where}: appeal with the records showing a diagnosis on ${lists.map((l) => `${l.doc_id}'s ${l.covered_count}-code covered list`).join(' or ')} and the documentation they require (an 835 carries no diagnoses: check the claim's); if a diagnosis was billed wrongly, correct the claim and resubmit instead`
      : rules.length
        ? `${ids} decide${rules.length === 1 ? 's' : ''} ${code}${where} by ${rules.length === 1 ? 'its' : 'their'} indications, without a covered-diagnosis list: appeal with the records that meet them`
        : `no loaded ${payer.medicare ? 'LCD or billing article' : `rule of ${payer.slug}`} lists ${code}${where}: the payer's review of the records decided; appeal with the records that support the service`;
  return { payer: payer?.slug ?? null, code, date_of_service: dos, state: at.state, state_source: at.source, rules, covered_diagnosis_lists: lists, explanation };
}

/** The payee's state for coverage documents (see `Pricer.payeeState`). */
interface PayeeState {
  state: string | null;
  source: 'ccn' | 'locality' | 'payee_npi' | null;
}

type Located = { locality: string; source: 'ccn' | 'locality' | 'payee_npi'; facility?: Facility } | { locality: null; why: string };

/**
 * Prices lines through the payment route's one composition (`paymentFor`), so an expected amount
 * is the one `GET /v1/codes/{code}/payment` gives for the code, modifiers, date, place of service
 * and locality. Compositions and payee locations are memoised for the call: a day's file repeats them.
 */
class Pricer {
  private readonly located = new Map<string, Promise<Located>>();
  private readonly composed = new Map<string, ReturnType<Pricer['compose']>>();
  private readonly priced = new Map<string, Promise<LinePricing>>();
  private readonly settled = new Map<string, LinePricing>();
  private readonly records = new Map<string, Promise<{ version: string | null; rec: Awaited<ReturnType<typeof findNpi>> | null }>>();
  /** The state of the ccn or locality asked (checkQuery). */
  private queryState: string | null = null;
  private fellBack = 0;

  constructor(
    private readonly snapshot: SnapshotReader,
    private readonly where: PayeeLocation,
    private readonly trace: Trace,
  ) {}

  /** A ccn or locality that names nothing is the caller's mistake: 422 before any line is priced. */
  async checkQuery(): Promise<void> {
    if (this.where.ccn) {
      try {
        this.queryState = (await resolveFacility(this.snapshot, null, this.where.ccn, 'reference')).effective.state;
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
        throw new ValidationError([{ loc: ['query', 'ccn'], msg: e.message, type: 'value_error', input: this.where.ccn }]);
      }
      if (this.where.locality) this.trace.warn(`locality ${this.where.locality} ignored: ccn ${this.where.ccn} sets the payee's locality`);
    } else if (this.where.locality) {
      const g = await lookupGpci(this.snapshot, this.where.locality);
      if (!g?.row) throw new ValidationError([{ loc: ['query', 'locality'], msg: g ? `locality ${this.where.locality} is not in GPCI ${g.version}` : 'gpci is not loaded; no locality can be priced', type: 'value_error', input: this.where.locality }]);
      this.queryState = g.row.state;
    }
  }

  finish(): void {
    if (this.fellBack) this.trace.fallback(`pricing: ${this.fellBack} fee schedule amount${this.fellBack > 1 ? 's were' : ' was'} composed with fallback data (see the lines' pricing.notes)`);
  }

  private locate(npi: string | null): Promise<Located> {
    if (this.where.ccn) return Promise.resolve({ locality: this.where.ccn, source: 'ccn' });
    if (this.where.locality) return Promise.resolve({ locality: this.where.locality, source: 'locality' });
    const key = npi ?? '';
    let p = this.located.get(key);
    if (!p) this.located.set(key, (p = this.fromNpi(npi)));
    return p;
  }

  /** The payee's state: the ccn's or locality's asked, else the payee NPI's practice state in NPPES. */
  async payeeState(npi: string | null): Promise<PayeeState> {
    if (this.where.ccn) return { state: this.queryState, source: this.queryState ? 'ccn' : null };
    if (this.where.locality) return { state: this.queryState, source: this.queryState ? 'locality' : null };
    const state = npi ? ((await this.record(npi)).rec?.provider.practice_address?.state ?? null) : null;
    return { state, source: state ? 'payee_npi' : null };
  }

  /** The payee NPI's record in the local NPPES copy (once per call). */
  private record(npi: string) {
    let p = this.records.get(npi);
    if (!p) {
      const version = nppesVersion(this.snapshot);
      this.trace.use('nppes', version);
      this.records.set(npi, (p = version ? findNpi(this.snapshot, version, npi).then((rec) => ({ version, rec: rec ?? null })) : Promise.resolve({ version: null, rec: null })));
    }
    return p;
  }

  /** The payee NPI's practice location ZIP in the local NPPES copy, to its Medicare locality (zip_locality). */
  private async fromNpi(npi: string | null): Promise<Located> {
    if (!npi) return { locality: null, why: 'no ccn or locality given and the file names no payee NPI (N1*PE*XX)' };
    const { version, rec } = await this.record(npi);
    if (!version) return { locality: null, why: 'no ccn or locality given and nppes is not loaded to find the payee NPI\'s practice location' };
    const zip = rec?.provider.practice_address?.postal_code ?? null;
    if (!zip) return { locality: null, why: rec ? `payee NPI ${npi} has no practice location ZIP in nppes ${version}` : `payee NPI ${npi} is not in the local NPPES copy (${version}); pass ccn or locality` };
    const [hit] = await findLocalityForZip(this.snapshot, zip);
    this.trace.use('zip_locality', hit?.version ?? null);
    if (!hit) return { locality: null, why: `the practice ZIP ${zip.slice(0, 5)} of payee NPI ${npi} is not in zip_locality${this.snapshot.has('zip_locality') ? '' : ' (not loaded)'}; pass ccn or locality` };
    return { locality: hit.locality, source: 'payee_npi' };
  }

  /**
   * A line's pricing, shared with every line that reads the same inputs (a day's file prices the
   * same code, date and amount thousands of times; the answer is read-only from here on).
   */
  price(npi: string | null, claim: RemitClaim, line: RemitLine, code: string, setting: 'prac' | 'hosp'): LinePricing | Promise<LinePricing> {
    const denied = line.adjustments.some((a) => a.group !== 'PR');
    const key = `${npi}|${claim.claim_filing_indicator}|${claim.status.code}|${claim.facility_code}|${setting}|${dosOf(claim, line)}|${code}|${line.modifiers.join(',')}|${line.units}|${line.allowed}|${denied}`;
    // Settled already: the value itself (no promise turn for the thousands of lines that repeat one).
    const done = this.settled.get(key);
    if (done) return done;
    let p = this.priced.get(key);
    if (!p) {
      this.priced.set(key, (p = this.priceLine(npi, claim, line, code, setting)));
      void p.then((v) => this.settled.set(key, v), () => undefined);
    }
    return p;
  }

  private async priceLine(npi: string | null, claim: RemitClaim, line: RemitLine, code: string, setting: 'prac' | 'hosp'): Promise<LinePricing> {
    const dos = dosOf(claim, line);
    const pos = setting === 'prac' && claim.facility_code && /^\d{2}$/.test(claim.facility_code) ? claim.facility_code : null;
    const none = { expected_allowed: null, expected_per_unit: null, actual_allowed: line.allowed, difference: null, locality: null, location_source: null, place_of_service: pos, date_of_service: dos, status_indicator: null, notes: [] };
    const not = (reason: NonNullable<LinePricing['reason']>, reason_text: string, extra: Partial<LinePricing> = {}): LinePricing => ({ status: 'not_priced', reason, reason_text, ...none, ...extra });
    const fi = claim.claim_filing_indicator;
    const anesthesia = isAnesthesiaCode(code);
    if (anesthesia && fi !== 'MB') return not('unit_basis_unknown', `${code} is an anesthesia code: a payer other than Medicare Part B may count its units as minutes or as time units, which the remittance does not say`);
    if (setting === 'hosp' ? fi !== 'MA' && fi !== 'MB' : fi !== 'MB') {
      return not('other_payer_contract', `claim filing indicator ${fi ?? '(none)'} is not Medicare${setting === 'hosp' ? ' (MA or MB)' : ' Part B (MB)'}: the payer's contract prices the line, not the Medicare ${setting === 'hosp' ? 'OPPS' : 'fee schedule'}`);
    }
    if (claim.status.code === '22') return not('reversal', 'a reversal of an earlier payment (CLP02 22): the corrected claim that follows is priced');
    if (!dos) return not('no_date_of_service', 'the line and its claim carry no date of service');
    const modifiers = line.modifiers.filter((m) => /^[A-Z0-9]{2}$/.test(m));
    if (setting === 'hosp') {
      // CLP08 of an institutional claim: the first two digits of its type of bill.
      const tob = claim.facility_code && /^\d{2}$/.test(claim.facility_code) ? claim.facility_code : null;
      if (tob && !OPPS_BILL_TYPES.has(tob)) return not('institutional_claim', `type of bill ${tob}x is not a hospital outpatient claim (12x, 13x, 14x): ${tob === '11' ? 'an inpatient stay is paid per MS-DRG, not per line' : 'its lines are not paid under the OPPS'}`);
      if (!this.where.ccn) return not('no_location', 'an outpatient hospital line is priced at its hospital: pass ccn (a payee NPI names no CCN)');
    }
    const at = setting === 'hosp' ? ({ locality: this.where.ccn!, source: 'ccn' } as const) : await this.locate(npi);
    if (at.locality === null) return not('no_location', at.why);
    // An anesthesia line's units are its minutes (SVC07 as billed, else SVC05: ch. 12 section 50).
    const minutes = anesthesia && setting === 'prac' ? Math.round(line.submitted_units ?? line.units) : null;
    const key = [setting, code, modifiers.join(','), dos, pos ?? '', at.source, at.locality, minutes ?? ''].join('|');
    let p = this.composed.get(key);
    if (!p) this.composed.set(key, (p = this.compose(code, modifiers, dos, pos, at, minutes)));
    const composed = await p;
    // The composition's notes on this line's setting only (an OPPS line is not told about the physician's RVUs).
    const c = { ...composed, notes: (composed.notes ?? []).filter((n) => !OTHER_BLOCKS[setting].test(n)) };
    const where = { locality: at.source === 'ccn' ? null : at.locality, location_source: at.source, place_of_service: pos, date_of_service: dos };
    if (c.missing !== undefined) return not('not_on_fee_schedule', c.missing, where);
    const year = Number(dos.slice(0, 4));
    let perUnit: number;
    let perLine = minutes !== null;
    let si: string | null = null;
    if (setting === 'hosp') {
      const o = c.opps;
      if (!o) return not('not_on_fee_schedule', `${code} has no OPPS payment at ccn ${at.locality}${c.notes.length ? `: ${c.notes.join('; ')}` : ''}`, { ...where, notes: c.notes });
      if (o.informational) return not('institutional_claim', `ccn ${at.locality} is not paid under the OPPS (a critical access or Maryland hospital): ${c.notes.join('; ')}`, { ...where, notes: c.notes });
      if (o.year !== year) return not('no_loaded_year', `no CY${year} OPPS Addendum B is loaded${o.year ? ` (the nearest is CY${o.year})` : ''}`, { ...where, notes: c.notes });
      perUnit = o.perUnit;
      si = o.si;
      // A comprehensive APC (J1, J2) pays the claim's primary service once, whatever its units.
      perLine = COMPREHENSIVE_SI.includes(o.si);
    } else {
      if (c.perUnit === null) return not('not_on_fee_schedule', `${code} has no physician fee schedule amount${c.notes.length ? `: ${c.notes.join('; ')}` : ''}`, { ...where, notes: c.notes });
      if (c.rvuYear !== year) return not('no_loaded_year', `no CY${year} physician fee schedule release is loaded${c.rvuYear ? ` (the nearest is CY${c.rvuYear})` : ''}`, { ...where, notes: c.notes });
      perUnit = c.perUnit;
    }
    const units = Dec.of(perLine || line.units <= 0 ? 1 : line.units);
    const expected = Dec.of(perUnit).mul(units);
    const diff = Dec.of(line.allowed).sub(expected);
    const priced = { ...where, expected_allowed: toCents(expected), expected_per_unit: perUnit, actual_allowed: line.allowed, difference: toCents(diff), status_indicator: si, notes: c.notes };
    return { status: judgePricing(line.allowed, expected, units), ...priced, ...(expected.compare(0) !== 0 && line.allowed === 0 ? DENIED(setting, priced) : {}) };
  }

  /**
   * One payment composition (the payment route's): the physician fee schedule amount, and at a
   * ccn the OPPS amount with its status indicator (a packaged code, SI N, is paid 0 separately).
   */
  private async compose(code: string, modifiers: string[], dos: string, pos: string | null, at: Extract<Located, { source: unknown }>, minutes: number | null) {
    const t = new Trace(this.snapshot, () => new Date(0));
    try {
      const c = await paymentFor(
        this.snapshot,
        null,
        { code, date_of_service: dos, ...(modifiers.length ? { modifier: modifiers.slice(0, 4) } : {}), ...(pos ? { place_of_service: pos } : {}), ...(at.source === 'ccn' ? { ccn: at.locality } : { locality: at.locality }), ...(minutes !== null && minutes >= 1 && minutes <= 1440 ? { anesthesia_minutes: minutes } : {}) },
        dos,
        t,
      );
      this.trace.useAll(t.versions);
      if (t.degraded) this.fellBack++;
      const oppsVersion = at.source === 'ccn' ? (t.versions.opps_addendum_b ?? null) : null;
      const oppsYear = oppsVersion ? yearOfOpps(this.snapshot, oppsVersion) : null;
      let opps: { perUnit: number; si: string; informational: boolean; year: number | null } | null = null;
      const o = c.outpatient_facility;
      if (o) opps = { perUnit: o.allowed_fac_payment, si: o.status_indicator, informational: o.informational, year: oppsYear };
      else if (oppsVersion) {
        const [row] = await findOppsRatesIn(this.snapshot, oppsVersion, code);
        if (row?.status_indicator === 'N') opps = { perUnit: 0, si: 'N', informational: false, year: oppsYear };
      }
      return { perUnit: c.physician?.allowed_phy_payment ?? null, rvuYear: c.physician?.rvu_year ?? null, opps, notes: t.warnings };
    } catch (e) {
      if (!(e instanceof NotFoundError) && !(e instanceof ValidationError)) throw e;
      this.trace.useAll(t.versions);
      return { missing: e instanceof ValidationError && e.issues?.length ? e.issues.map((i) => i.msg).join('; ') : e.message };
    }
  }
}
