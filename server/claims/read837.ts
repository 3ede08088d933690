import { isoOfYmd } from '../../datasets/_shared/dates.js';
import { readEnvelope, X12Error, type ReaderFinding, type Segment, type Separators, type Transaction } from '../../lib/x12/reader.js';
import type { Claim, ClaimKind, Line, ClaimProvider, ReadIssue } from './model.js';

/**
 * The X12 837 claim reader (professional 005010X222A1/A2, institutional 005010X223A2/A3): the
 * envelope is `lib/x12/reader.ts`'s; this walks each 837 transaction's HL hierarchy (2000A billing
 * provider, 2000B subscriber, 2000C patient) and yields one `Claim` per CLM with the context its HL
 * parents give it. Claims are yielded one at a time (a 10,000-claim file is never all held as
 * claims). What is wrong in a claim's structure is an issue on the claim, never an exception; only
 * a file that is not a 5010 837 throws. Nothing here echoes the file's text in a message: an 837
 * carries PHI.
 */

/** One 837 transaction (ST..SE) of the file. */
export interface Transaction837 {
  /** 0-based index among all the file's transactions (`Claim.transaction.index`). */
  index: number;
  control_number: string;
  version: string | null;
  /** From the version (X222 professional, X223 institutional); null when it says neither (each claim is then decided by its SV1 or SV2 lines). */
  kind: ClaimKind | null;
  /** CLM segments it holds. */
  claims: number;
  /** Its ST segment's position. */
  segment: number;
}

/** An 837 file read: what the envelope pass counted, and its claims on demand. */
export interface Claims837 {
  separators: Separators;
  interchanges: number;
  segments: number;
  /** CLM segments in the 837 transactions (counted without reading them: progress, limits). */
  claims: number;
  /** Claims by kind, as each transaction's version says (or, when it says neither, its SV1 and SV2 counts). */
  kinds: Record<ClaimKind, number>;
  transactions: Transaction837[];
  /** The envelope's findings (counts that disagree, segments outside ST..SE) and the transactions skipped as not 837 P or I. */
  findings: ReaderFinding[];
  /** Issues outside any claim (a service line before any CLM, an unreadable segment id in the header): filled as `each()` runs, complete once it has. */
  issues: ReadIssue[];
  /** The claims in file order, read from the text again on each call. */
  each(): Generator<Claim>;
}

const txt = (s: string | undefined): string => (s ?? '').trim();
const opt = (s: string | undefined): string | null => txt(s) || null;
const issue = (code: ReadIssue['code'], segment_id: string, segment: number, loop: string, message: string): ReadIssue => ({ code, message, segment_id, segment, loop });

/** Exact decimal text (what CLM02, SV102 and SV203 hold); amounts stay text for the checks' exact arithmetic. */
const AMOUNT = /^-?(?:\d{1,15}(?:\.\d{0,6})?|\.\d{1,6})$/;
const QUANTITY = /^-?(?:\d{1,12}(?:\.\d{0,6})?|\.\d{1,6})$/;
/** A segment id as X12 spells them: a letter and one or two letters or digits. */
const SEGMENT_ID = /^[A-Z][A-Z0-9]{1,2}$/;

/** HI qualifiers that are diagnoses (5010 ICD-10 A-codes and their ICD-9 twins); value, occurrence, condition and procedure codes are not. */
const DIAGNOSIS = new Set(['ABK', 'BK', 'ABF', 'BF', 'ABJ', 'BJ', 'APR', 'PR', 'ABN', 'BN']);
/** The diagnoses SV107 points at, numbered in file order (principal first). */
const POINTED = new Set(['ABK', 'BK', 'ABF', 'BF']);
const DTP_MEANING: Record<string, string> = { '472': 'service date', '434': 'statement dates', '435': 'admission date' };

/** X222 is the professional TR3, X223 the institutional one. */
function kindOfVersion(v: string | null): ClaimKind | null {
  if (v && /X222/i.test(v)) return 'professional';
  if (v && /X223/i.test(v)) return 'institutional';
  return null;
}

/** CCYYMMDD as YYYY-MM-DD; null when it is not a calendar date (20050230). */
function isoOf(s: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(txt(s));
  return m ? isoOfYmd(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/**
 * A DTP's date (D8), range (RD8 `CCYYMMDD-CCYYMMDD`) or date and time (DT, the 837I admission): a
 * single day is from = to, as the 835 reader reads DTM*472. An unreadable one is null with an issue.
 */
function dtpDates(seg: Segment, loop: string, issues: ReadIssue[]): { from: string | null; to: string | null } {
  const fmt = txt(seg.el[1]);
  const v = txt(seg.el[2]);
  const what = `DTP03 (${DTP_MEANING[txt(seg.el[0])] ?? 'date'})`;
  const unread = (code: ReadIssue['code'], message: string) => {
    issues.push(issue(code, 'DTP', seg.index, loop, message));
    return { from: null, to: null };
  };
  if (v === '') return unread('missing_element', `${what} is missing`);
  let from: string | null = null;
  let to: string | null = null;
  const range = v.split('-');
  if (fmt === 'D8') from = to = isoOf(v);
  else if (fmt === 'DT') from = to = /^\d{12}$/.test(v) ? isoOf(v.slice(0, 8)) : null;
  else if (fmt === 'RD8' && range.length === 2) [from, to] = [isoOf(range[0]), isoOf(range[1])];
  else if (fmt !== 'RD8') return unread('invalid_value', `DTP02 (date time period format qualifier) is not D8, RD8 or DT: ${what} not read`);
  if (from === null || to === null) issues.push(issue('invalid_value', 'DTP', seg.index, loop, `${what} is not a calendar date in the ${fmt} format (${fmt === 'RD8' ? 'CCYYMMDD-CCYYMMDD' : 'CCYYMMDD'})`));
  return { from, to };
}

/**
 * A composite element's components. A sender that separates them with another character than
 * ISA16 says (`13>A>1` under ISA16 `:`, LinuxForHealth's ppo-repriced-claim.837i) is followed,
 * and reported once per transaction (in the file-level issues).
 */
class Components {
  private warned = false;
  constructor(
    private readonly sep: Separators,
    private readonly fileIssues: ReadIssue[],
  ) {}

  split(value: string | undefined, seg: Segment, element: string, loop: string): string[] {
    const v = txt(value);
    if (v.includes(this.sep.component)) return v.split(this.sep.component).map((c) => c.trim());
    const other = /^[A-Za-z0-9]{1,3}([:>^|\\<!{}])/.exec(v);
    if (!other || other[1] === this.sep.element) return [v];
    if (!this.warned) {
      this.warned = true;
      this.fileIssues.push(issue('invalid_value', seg.id, seg.index, loop, `${element} separates its components with another character than ISA16 (the component separator) declares: followed for the transaction`));
    }
    return v.split(other[1]!).map((c) => c.trim());
  }
}

/** NM1 as a provider: NM103 its name, NM109 its NPI when NM108 is XX (a tax id when 24 EIN or 34 SSN, as 4010 senders still put it). */
function providerOf(seg: Segment): ClaimProvider {
  const q = txt(seg.el[7]);
  const id = opt(seg.el[8]);
  return { name: opt(seg.el[2]), npi: q === 'XX' ? id : null, tin: q === '24' || q === '34' ? id : null, taxonomy: null, state: null, zip: null, segment: seg.index };
}

/** Where an N4 puts the state (N402) and ZIP (N403). */
const placeOf =
  (p: { state: string | null; zip: string | null }) =>
  (seg: Segment): void => {
    p.state = opt(seg.el[1]);
    p.zip = opt(seg.el[2]);
  };

/** What the segments after an NM1 (its loop's N4, DMG, REF, PRV) fill; null for a loop the reader does not keep. */
type Target = Partial<Record<'n4' | 'dmg' | 'ref' | 'prv', (seg: Segment) => void>>;

/** 2000A: the billing provider every claim under it carries. */
interface BillingCtx {
  level: '20';
  hl: number;
  provider: ClaimProvider | null;
  /** PRV*BI, which precedes NM1*85 in the loop. */
  taxonomy: string | null;
  issues: ReadIssue[];
}

/** 2000B: the subscriber, the payer and (when no 2000C follows) the patient. */
interface SubscriberCtx {
  level: '22';
  hl: number;
  billing: BillingCtx | null;
  /** SBR's position; whether NM1*IL (2010BA) and NM1*PR (2010BB) were there. */
  sbr: number | null;
  il: boolean;
  pr: boolean;
  subscriber: Claim['subscriber'];
  birth_date: string | null;
  payer: Claim['payer'];
  issues: ReadIssue[];
}

/** 2000C: a patient who is not the subscriber. */
interface PatientCtx {
  level: '23';
  hl: number;
  sub: SubscriberCtx | null;
  patient: Claim['patient'];
  issues: ReadIssue[];
}

type HlCtx = BillingCtx | SubscriberCtx | PatientCtx;

/** A claim being read and what the reader needs until its end. */
interface Building {
  claim: Claim;
  /** 2300 claim, 2320/2330 other payer (nothing kept but the count), 2400 line, 2430 line adjudication (skipped). */
  phase: 'claim' | 'other_payer' | 'line' | 'line_adjudication';
  /** The LX before the next SV1/SV2: its LX01, or null when unreadable. */
  lx: { n: number | null } | null;
  line: Line | null;
  /** 2310B NM1*82 and 2310A NM1*71: which is the claim's rendering provider depends on its kind. */
  rendering: ClaimProvider | null;
  attending: ClaimProvider | null;
  /** SV1 and SV2 lines (a claim's kind when the version says neither) and diagnoses numbered for SV107. */
  counts: { sv1: number; sv2: number; pointers: number };
}

/** A subscriber context's fields as a claim's (copied: the claims under one HL share nothing). */
function subscriberOf(s: SubscriberCtx | null): Pick<Claim, 'subscriber' | 'payer' | 'patient'> {
  const sub = s?.subscriber ?? { payer_responsibility: null, filing_indicator: null, member_id: null, last_name: null, first_name: null, state: null, zip: null };
  return {
    subscriber: { ...sub },
    payer: { ...(s?.payer ?? { name: null, id: null }) },
    patient: { last_name: sub.last_name, first_name: sub.first_name, birth_date: s?.birth_date ?? null, state: sub.state, zip: sub.zip },
  };
}

/** What the HL hierarchy over a claim lacks (TR3-required loops and segments), at the HL that lacks it. */
function contextIssues(clm: Segment, billing: BillingCtx | null, sub: SubscriberCtx | null): ReadIssue[] {
  const out: ReadIssue[] = [];
  if (!billing) out.push(issue('missing_segment', 'HL', clm.index, '2000A', 'no billing provider level (HL03 20) is above the claim'));
  else if (!billing.provider) out.push(issue('missing_segment', 'NM1*85', billing.hl, '2010AA', 'the billing provider level has no NM1*85 (billing provider name and NPI)'));
  if (!sub) out.push(issue('missing_segment', 'HL', clm.index, '2000B', 'no subscriber level (HL03 22) is above the claim'));
  else {
    if (sub.sbr === null) out.push(issue('missing_segment', 'SBR', sub.hl, '2000B', 'the subscriber level has no SBR (payer responsibility and claim filing indicator)'));
    if (!sub.il) out.push(issue('missing_segment', 'NM1*IL', sub.hl, '2010BA', 'the subscriber level has no NM1*IL (subscriber name and member id)'));
    if (!sub.pr) out.push(issue('missing_segment', 'NM1*PR', sub.hl, '2010BB', 'the subscriber level has no NM1*PR (payer name and id)'));
  }
  return out;
}

/** The claim a CLM opens: CLM01 PCN, CLM02 total, CLM05 facility code, qualifier and frequency; the rest filled as its segments come. */
function claimOf(seg: Segment, t: Transaction, index: number, comp: Components): Claim {
  const issues: ReadIssue[] = [];
  const pcn = txt(seg.el[0]);
  if (!pcn) issues.push(issue('missing_element', 'CLM', seg.index, '2300', 'CLM01 (patient control number) is missing'));
  let total = opt(seg.el[1]);
  if (total === null) issues.push(issue('missing_element', 'CLM', seg.index, '2300', 'CLM02 (total claim charge amount) is missing'));
  else if (!AMOUNT.test(total)) {
    issues.push(issue('invalid_value', 'CLM', seg.index, '2300', 'CLM02 (total claim charge amount) is not a decimal amount'));
    total = null;
  }
  const [facility, qualifier, frequency] = comp.split(seg.el[4], seg, 'CLM05', '2300');
  if (!facility) issues.push(issue('missing_element', 'CLM', seg.index, '2300', 'CLM05-1 (place of service or facility type code) is missing'));
  return {
    kind: 'professional', transaction: { index, control_number: t.control_number, version: t.version }, segment: seg.index,
    patient_control_number: pcn, total_charge: total, facility_code: facility || null, facility_qualifier: qualifier || null, frequency: frequency || null,
    place_of_service: null, type_of_bill: null, statement_from: null, statement_to: null, original_reference: null, prior_authorization: null,
    billing_provider: null, rendering_provider: null, service_facility: null,
    ...subscriberOf(null), other_payers: 0, diagnoses: [], lines: [], issues,
  };
}

/** A line with nothing read yet. */
const emptyLine = (n: number, seg: Segment): Line => ({
  line_number: n, segment: seg.index, revenue_code: null, code: null, code_qualifier: null, modifiers: [], charged: null, unit_basis: null, units: null, place_of_service: null,
  diagnosis_pointers: [], date_from: null, date_to: null, control_number: null, ndc: null, ndc_segment: null, prior_authorization: null, rendering_npi: null,
});

/** The procedure composite (SV101 / SV202): qualifier, code, up to four modifiers (SV101-7 is a description, never kept). */
function procedure(line: Line, parts: string[]): void {
  const [qualifier, code, ...rest] = parts;
  line.code_qualifier = qualifier || null;
  line.code = code || null;
  line.modifiers = rest.slice(0, 4).filter((m) => m !== '');
}

/** The charge and units a line's segment holds, each checked: an unreadable one is null with an issue naming the element. */
function chargeAndUnits(line: Line, seg: Segment, at: { charge: number; basis: number; units: number }, issues: ReadIssue[]): void {
  const name = (i: number) => `${seg.id}${String(i + 1).padStart(2, '0')}`;
  const charge = opt(seg.el[at.charge]);
  if (charge === null) issues.push(issue('missing_element', seg.id, seg.index, '2400', `${name(at.charge)} (line item charge amount) is missing`));
  else if (!AMOUNT.test(charge)) issues.push(issue('invalid_value', seg.id, seg.index, '2400', `${name(at.charge)} (line item charge amount) is not a decimal amount`));
  else line.charged = charge;
  line.unit_basis = opt(seg.el[at.basis]);
  const units = txt(seg.el[at.units]);
  if (units !== '' && !QUANTITY.test(units)) issues.push(issue('invalid_value', seg.id, seg.index, '2400', `${name(at.units)} (service unit count) is not a number`));
  else if (units !== '') line.units = Number(units);
}

/** SV1, the professional line: procedure, charge, unit basis and units, place of service (SV105), diagnosis pointers (SV107). */
function sv1Line(line: Line, seg: Segment, comp: Components, issues: ReadIssue[]): void {
  procedure(line, comp.split(seg.el[0], seg, 'SV101', '2400'));
  if (!line.code) issues.push(issue('missing_element', 'SV1', seg.index, '2400', 'SV101-2 (procedure code) is missing'));
  chargeAndUnits(line, seg, { charge: 1, basis: 2, units: 3 }, issues);
  line.place_of_service = opt(seg.el[4]);
  for (const p of txt(seg.el[6]) ? comp.split(seg.el[6], seg, 'SV107', '2400') : []) {
    // An integer written as a decimal (`1.00`, LinuxForHealth's anesthesia example9.837) points all the same.
    if (/^\d{1,2}(?:\.0*)?$/.test(p) && Number(p) >= 1) line.diagnosis_pointers.push(Number(p));
    else if (p !== '') issues.push(issue('invalid_value', 'SV1', seg.index, '2400', 'SV107 (diagnosis code pointer) is not a diagnosis position (1 to 12)'));
  }
}

/** SV2, the institutional line: revenue code (SV201), an optional HCPCS composite (SV202), charge, unit basis and units. */
function sv2Line(line: Line, seg: Segment, comp: Components, issues: ReadIssue[]): void {
  line.revenue_code = opt(seg.el[0]);
  if (!line.revenue_code) issues.push(issue('missing_element', 'SV2', seg.index, '2400', 'SV201 (service line revenue code) is missing'));
  if (txt(seg.el[1])) procedure(line, comp.split(seg.el[1], seg, 'SV202', '2400'));
  chargeAndUnits(line, seg, { charge: 2, basis: 3, units: 4 }, issues);
}

/** HI: the composites whose qualifier is a diagnosis, numbered for SV107 (principal and other diagnoses only), without periods. */
function readHi(b: Building, seg: Segment, comp: Components): void {
  const c = b.claim;
  let split = false;
  for (let i = 0; i < seg.el.length; i++) {
    if (!txt(seg.el[i])) continue;
    const name = `HI${String(i + 1).padStart(2, '0')}`;
    let [qualifier = '', code = ''] = comp.split(seg.el[i], seg, name, '2300');
    // imsweb's test files (x12_valid.txt) send `HI*BK*8901*BF*87200`: a qualifier and its code in two elements.
    if (code === '' && DIAGNOSIS.has(qualifier) && txt(seg.el[i + 1]) && comp.split(seg.el[i + 1], seg, name, '2300').length === 1) {
      code = txt(seg.el[++i]);
      split = true;
    }
    if (!DIAGNOSIS.has(qualifier)) continue;
    if (!code) {
      c.issues.push(issue('missing_element', 'HI', seg.index, '2300', `${name}-2 (diagnosis code) is missing`));
      continue;
    }
    c.diagnoses.push({ code: code.replace(/\./g, ''), qualifier, principal: qualifier === 'ABK' || qualifier === 'BK', pointer: POINTED.has(qualifier) ? ++b.counts.pointers : null, segment: seg.index });
  }
  if (split) c.issues.push(issue('invalid_value', 'HI', seg.index, '2300', 'HI sends a diagnosis qualifier and its code in two elements instead of one composite (qualifier, component separator, code): read as pairs'));
}

/**
 * One 837 transaction read into claims: the HL hierarchy kept as contexts (an HL's parent found by
 * HL02), the loop a segment belongs to told by the segments before it (NM1 entity codes, SBR, LX,
 * SVD), as the TR3 orders them. Segments it does not know are skipped.
 */
class ClaimReader {
  private readonly byId = new Map<string, HlCtx>();
  private billing: BillingCtx | null = null;
  private sub: SubscriberCtx | null = null;
  private pat: PatientCtx | null = null;
  /** The HL level the segments belong to; `other` for an HL03 the reader does not know. */
  private level: 'header' | '20' | '22' | '23' | 'other' = 'header';
  private target: Target | null = null;
  private b: Building | null = null;
  /** Issues before the next claim (a service line outside any claim): attached to it, else to the file. */
  private stray: ReadIssue[] = [];
  private readonly comp: Components;

  constructor(
    private readonly t: Transaction,
    private readonly index: number,
    private readonly kind: ClaimKind | null,
    sep: Separators,
    private readonly fileIssues: ReadIssue[],
  ) {
    this.comp = new Components(sep, fileIssues);
  }

  /** The transaction's claims, each yielded when the next HL, CLM or the SE ends it. */
  *read(): Generator<Claim> {
    for (const seg of this.t.each()) {
      if ((seg.id === 'HL' || seg.id === 'CLM' || seg.id === 'SE') && this.b) yield this.finish();
      if (seg.id === 'HL') this.onHl(seg);
      else if (seg.id === 'CLM') this.onClm(seg);
      // The id is not echoed: where a terminator is lost, what stands in its place may be a name.
      else if (!SEGMENT_ID.test(seg.id)) this.here().push(issue('unexpected_segment', '(unreadable)', seg.index, this.loop(), 'the segment has no readable segment id (a letter and one or two letters or digits): skipped'));
      else if (this.b) this.inClaim(seg, this.b);
      else this.inHierarchy(seg);
    }
    if (this.b) yield this.finish();
    this.fileIssues.push(...this.stray);
  }

  /** The TR3 loop the reader is in, for an issue about a segment it cannot place more precisely. */
  private loop(): string {
    if (this.b) return { claim: '2300', other_payer: '2320', line: '2400', line_adjudication: '2430' }[this.b.phase];
    return { header: 'header', '20': '2000A', '22': '2000B', '23': '2000C', other: 'HL' }[this.level];
  }

  /** Where an issue outside any claim goes: the current HL (every claim under it carries it), else the file. */
  private here(): ReadIssue[] {
    return this.b?.claim.issues ?? (this.pat ?? this.sub ?? this.billing)?.issues ?? this.fileIssues;
  }

  /** The context HL02 names, else (a parent id naming no earlier HL of that level) the preceding one, with an issue. */
  private parent<T extends HlCtx>(seg: Segment, level: T['level'], preceding: T | null, issues: ReadIssue[]): T | null {
    const found = this.byId.get(txt(seg.el[1]));
    if (found?.level === level) return found as T;
    const what = level === '20' ? 'billing provider (HL03 20)' : 'subscriber (HL03 22)';
    if (preceding) issues.push(issue('invalid_value', 'HL', seg.index, level === '20' ? '2000B' : '2000C', `HL02 (hierarchical parent id) names no earlier ${what} level: read under the preceding one`));
    return preceding;
  }

  /** HL: a new context (HL03 20, 22 or 23) under the one HL02 names; the segments under an HL03 of another kind are skipped. */
  private onHl(seg: Segment): void {
    const id = txt(seg.el[0]);
    const code = txt(seg.el[2]);
    this.target = null;
    const issues: ReadIssue[] = [];
    if (code === '20') {
      const ctx: BillingCtx = { level: '20', hl: seg.index, provider: null, taxonomy: null, issues };
      [this.billing, this.sub, this.pat] = [ctx, null, null];
      this.target = { prv: (s) => (ctx.taxonomy = opt(s.el[2])) };
      this.byId.set(id, ctx);
    } else if (code === '22') {
      const billing = this.parent<BillingCtx>(seg, '20', this.billing, issues);
      const { subscriber, payer } = subscriberOf(null);
      const ctx: SubscriberCtx = { level: '22', hl: seg.index, billing, sbr: null, il: false, pr: false, subscriber, birth_date: null, payer, issues };
      [this.sub, this.pat] = [ctx, null];
      this.byId.set(id, ctx);
    } else if (code === '23') {
      const sub = this.parent<SubscriberCtx>(seg, '22', this.sub, issues);
      const ctx: PatientCtx = { level: '23', hl: seg.index, sub, patient: { last_name: null, first_name: null, birth_date: null, state: null, zip: null }, issues };
      this.pat = ctx;
      this.byId.set(id, ctx);
    }
    this.level = code === '20' || code === '22' || code === '23' ? code : 'other';
  }

  /** Segments between HLs and claims: 2000A/2010AA, 2000B/2010BA/2010BB, 2000C/2010CA. */
  private inHierarchy(seg: Segment): void {
    const el = seg.el;
    if (seg.id === 'NM1') this.target = this.level === 'header' || this.level === 'other' ? null : this.nm1Hierarchy(seg);
    else if (seg.id === 'N4') this.target?.n4?.(seg);
    else if (seg.id === 'DMG') this.target?.dmg?.(seg);
    else if (seg.id === 'REF') this.target?.ref?.(seg);
    else if (seg.id === 'PRV') this.target?.prv?.(seg);
    else if (seg.id === 'SBR' && this.level === '22' && this.sub) {
      this.sub.sbr = seg.index;
      this.sub.subscriber.payer_responsibility = opt(el[0]);
      this.sub.subscriber.filing_indicator = opt(el[8]);
    } else if (seg.id === 'SV1' || seg.id === 'SV2') {
      this.stray.push(issue('unexpected_segment', seg.id, seg.index, '2400', `${seg.id} (service line) is outside any claim (no CLM precedes it under its HL): not read`));
    }
  }

  /** An NM1 of the hierarchy: what it names, and what its N4, DMG, REF and PRV fill. */
  private nm1Hierarchy(seg: Segment): Target | null {
    const entity = txt(seg.el[0]);
    const el = seg.el;
    if (this.level === '20' && entity === '85' && this.billing) {
      const ctx = this.billing;
      if (ctx.provider) {
        ctx.issues.push(issue('unexpected_segment', 'NM1*85', seg.index, '2010AA', 'a second NM1*85 (billing provider) in one billing provider level: the first is kept'));
        return null;
      }
      const p = (ctx.provider = providerOf(seg));
      const ref = (s: Segment) => {
        if (txt(s.el[0]) === 'EI') p.tin = opt(s.el[1]);
      };
      return { n4: placeOf(p), ref, prv: (s) => (ctx.taxonomy = opt(s.el[2])) };
    }
    const sub = this.sub;
    if (this.level === '22' && sub && entity === 'IL') {
      sub.il = true;
      Object.assign(sub.subscriber, { last_name: opt(el[2]), first_name: opt(el[3]), member_id: opt(el[8]) });
      return { n4: placeOf(sub.subscriber), dmg: (s) => (sub.birth_date = this.birthDate(s, '2010BA', sub.issues)) };
    }
    if (this.level === '22' && sub && entity === 'PR') {
      sub.pr = true;
      sub.payer = { name: opt(el[2]), id: opt(el[8]) };
      return null;
    }
    const pat = this.pat;
    if (this.level === '23' && pat && entity === 'QC') {
      Object.assign(pat.patient, { last_name: opt(el[2]), first_name: opt(el[3]) });
      return { n4: placeOf(pat.patient), dmg: (s) => (pat.patient.birth_date = this.birthDate(s, '2010CA', pat.issues)) };
    }
    // NM1*87 pay-to, NM1*PE pay-to plan, and any other entity: not the billing provider, subscriber, payer or patient.
    return null;
  }

  /** DMG02 when DMG01 is D8; an unreadable one is null with an issue. */
  private birthDate(seg: Segment, loop: string, issues: ReadIssue[]): string | null {
    if (txt(seg.el[0]) !== 'D8' || !txt(seg.el[1])) return null;
    const d = isoOf(seg.el[1]);
    if (!d) issues.push(issue('invalid_value', 'DMG', seg.index, loop, 'DMG02 (birth date) is not a calendar date in the D8 format (CCYYMMDD)'));
    return d;
  }

  /** CLM: a claim with what its HL parents say (copied), the issues they carry and what they lack. */
  private onClm(seg: Segment): void {
    this.target = null;
    const claim = claimOf(seg, this.t, this.index, this.comp);
    const sub = this.pat ? this.pat.sub : this.sub;
    const billing = sub ? sub.billing : this.billing;
    Object.assign(claim, subscriberOf(sub));
    if (this.pat) claim.patient = { ...this.pat.patient };
    if (billing?.provider) claim.billing_provider = { ...billing.provider, taxonomy: billing.provider.taxonomy ?? billing.taxonomy };
    const carried = [billing, sub, this.pat].flatMap((c) => c?.issues.map((i) => ({ ...i })) ?? []);
    claim.issues.unshift(...this.stray, ...carried, ...contextIssues(seg, billing, sub));
    this.stray = [];
    this.b = { claim, phase: 'claim', lx: null, line: null, rendering: null, attending: null, counts: { sv1: 0, sv2: 0, pointers: 0 } };
  }

  /** A segment inside a claim, by the loop it is in. */
  private inClaim(seg: Segment, b: Building): void {
    const id = seg.id;
    if (id === 'LX') {
      const n = txt(seg.el[0]);
      if (!/^\d{1,6}$/.test(n)) b.claim.issues.push(issue('invalid_value', 'LX', seg.index, '2400', 'LX01 (assigned line number) is not a number: the line is numbered by its place'));
      [b.lx, b.line, b.phase, this.target] = [{ n: /^\d{1,6}$/.test(n) ? Number(n) : null }, null, 'line', null];
    } else if (id === 'SV1' || id === 'SV2') this.onServiceLine(seg, b);
    else if (id === 'SBR' && (b.phase === 'claim' || b.phase === 'other_payer')) {
      // 2320: another payer's loop; its 2330 NM1s (IL, PR, 82, 77 ...) are that payer's, never the claim's.
      b.claim.other_payers++;
      [b.phase, this.target] = ['other_payer', null];
    } else if (b.phase === 'claim') this.in2300(seg, b);
    else if (b.phase === 'line' && b.line) this.in2400(seg, b, b.line);
  }

  /** 2300 and its 2310 provider loops. */
  private in2300(seg: Segment, b: Building): void {
    const c = b.claim;
    const q = txt(seg.el[0]);
    if (seg.id === 'HI') readHi(b, seg, this.comp);
    else if (seg.id === 'DTP' && q === '434') ({ from: c.statement_from, to: c.statement_to } = dtpDates(seg, '2300', c.issues));
    // The admission date (DTP*435) is checked as a date; the model has no field for it yet.
    else if (seg.id === 'DTP' && q === '435') dtpDates(seg, '2300', c.issues);
    else if (seg.id === 'REF' && q === 'F8') c.original_reference = opt(seg.el[1]);
    else if (seg.id === 'REF' && q === 'G1') c.prior_authorization = opt(seg.el[1]);
    else if (seg.id === 'N4') this.target?.n4?.(seg);
    else if (seg.id === 'PRV') this.target?.prv?.(seg);
    else if (seg.id === 'NM1') {
      this.target = null;
      const p = q === '82' || q === '71' || q === '77' ? providerOf(seg) : null;
      if (!p) return;
      if (q === '82') b.rendering = p;
      else if (q === '71') b.attending = p;
      else c.service_facility = p;
      this.target = q === '77' ? { n4: placeOf(p) } : { prv: (s) => (p.taxonomy = opt(s.el[2])) };
    }
  }

  /** 2400 and its 2410 drug (LIN) and 2420A rendering provider loops; an SVD opens 2430, skipped. */
  private in2400(seg: Segment, b: Building, line: Line): void {
    const q = txt(seg.el[0]);
    if (seg.id === 'DTP' && q === '472') ({ from: line.date_from, to: line.date_to } = dtpDates(seg, '2400', b.claim.issues));
    else if (seg.id === 'REF' && q === '6R') line.control_number = opt(seg.el[1]);
    else if (seg.id === 'REF' && q === 'G1') line.prior_authorization = opt(seg.el[1]);
    else if (seg.id === 'LIN' && txt(seg.el[1]) === 'N4') [line.ndc, line.ndc_segment] = [opt(seg.el[2]), seg.index];
    else if (seg.id === 'NM1' && q === '82' && txt(seg.el[7]) === 'XX') line.rendering_npi = opt(seg.el[8]);
    else if (seg.id === 'SVD') b.phase = 'line_adjudication';
  }

  /** SV1 or SV2: a line numbered by the LX before it (an SV1/SV2 without its LX is read, numbered by its place, and reported). */
  private onServiceLine(seg: Segment, b: Building): void {
    const c = b.claim;
    if (!b.lx) c.issues.push(issue('missing_segment', 'LX', seg.index, '2400', `${seg.id} (service line) has no LX (service line number) before it: numbered by its place`));
    const line = emptyLine(b.lx?.n ?? c.lines.length + 1, seg);
    const sv1 = seg.id === 'SV1';
    if (this.kind && this.kind !== (sv1 ? 'professional' : 'institutional')) {
      c.issues.push(issue('unexpected_segment', seg.id, seg.index, '2400', `${seg.id} (${sv1 ? 'professional' : 'institutional'} service line) in a ${this.kind} 837 (version GS08/ST03): read as a line`));
    }
    if (sv1) sv1Line(line, seg, this.comp, c.issues);
    else sv2Line(line, seg, this.comp, c.issues);
    b.counts[sv1 ? 'sv1' : 'sv2']++;
    c.lines.push(line);
    [b.lx, b.line, b.phase, this.target] = [null, line, 'line', null];
  }

  /** The claim complete: its kind (the version's, else SV2 lines alone make it institutional), what depends on it, and what it lacks. */
  private finish(): Claim {
    const b = this.b!;
    this.b = null;
    this.target = null;
    const c = b.claim;
    c.kind = this.kind ?? (b.counts.sv2 > 0 && b.counts.sv1 === 0 ? 'institutional' : 'professional');
    if (c.kind === 'professional') {
      c.place_of_service = c.facility_code;
      for (const l of c.lines) l.place_of_service ??= c.place_of_service;
      c.rendering_provider = b.rendering;
    } else {
      c.type_of_bill = c.facility_code && c.frequency ? `${c.facility_code}${c.frequency}` : null;
      c.rendering_provider = b.attending ?? b.rendering;
    }
    if (c.lines.length === 0) c.issues.push(issue('missing_segment', 'LX', c.segment, '2400', 'the claim has no service line (loop 2400: LX with SV1 or SV2)'));
    if (!c.diagnoses.some((d) => d.principal)) c.issues.push(issue('missing_segment', 'HI', c.segment, '2300', 'the claim has no principal diagnosis (HI with qualifier ABK or BK)'));
    return c;
  }
}

/** Whether a version names 4010 (004010X098A1 professional, 004010X096A1 institutional). */
const is4010 = (v: string | null): boolean => v !== null && /^0*4010/.test(v.trim());
/** The 837 dental TR3 (005010X224): an 837, but neither kind this reader reads. */
const isDental = (v: string | null): boolean => v !== null && /X224/i.test(v);

const SETS: Record<string, string> = {
  '835': 'an 835 remittance advice', '999': 'a 999 implementation acknowledgment', '997': 'a 997 functional acknowledgment', TA1: 'a TA1 interchange acknowledgment',
  '270': 'a 270 eligibility inquiry', '271': 'a 271 eligibility response', '276': 'a 276 claim status request', '277': 'a 277 claim status response',
  '278': 'a 278 prior authorization request or response', '820': 'an 820 premium payment', '834': 'an 834 benefit enrollment',
};

/** What a transaction that is not an 837 P or I is, in words (a set id the reader does not know is not echoed). */
function describeTransaction(setId: string, version: string | null): string {
  if (setId === '837' && isDental(version)) return 'an 837 dental claim (005010X224)';
  if (setId === '277' && /X214/.test(version ?? '')) return 'a 277CA claim acknowledgment';
  return SETS[setId] ?? `an X12 ${/^[0-9]{3}$/.test(setId) ? setId : '(unrecognized)'} transaction`;
}

/** The 4010 refusal: HIPAA has required 5010 since 2012; the sender can produce one. */
function versionError(t: Transaction): X12Error {
  const kind = /X096/i.test(t.version ?? '') ? 'institutional (004010X096A1)' : /X098/i.test(t.version ?? '') ? 'professional (004010X098A1)' : '4010';
  const msg = `the 837 at segment ${t.st.index} is a 4010 ${kind} claim: only 5010 claims (005010X222A1 professional, 005010X223A2 institutional, the versions HIPAA requires since 2012) are read; ask the sender for the 5010 file`;
  const version = /^[0-9A-Z]{1,12}$/.test(t.version ?? '') ? t.version : null;
  return new X12Error([{ loc: ['body', 'segment', t.st.index, 'ST'], msg, type: 'x12_version', ctx: { version } }]);
}

/** The refusal of a file without an 837 P or I, naming what it holds (a set id the reader does not know is not echoed). */
function notAn837(all: Transaction[]): X12Error {
  const what = [...new Set(all.map((t) => describeTransaction(t.set_id, t.version)))];
  const sets = [...new Set(all.map((t) => (/^([0-9]{3}|TA1)$/.test(t.set_id) ? t.set_id : '(unrecognized)')))];
  const msg = `this file is ${what.join('; and ')}, not an 837 claim: send an 837 professional (005010X222A1) or institutional (005010X223A2) claim file`;
  return new X12Error([{ loc: ['body', 'segment', all[0]!.st.index, 'ST'], msg, type: 'x12_not_837', ctx: { transaction_sets: sets } }]);
}

/**
 * Reads an 837 (professional or institutional, 5010) into its claims. Throws `X12Error` for a file
 * that is not X12 or is cut short (the envelope reader's), whose transactions are none of them
 * 837 P or I (`x12_not_837`, naming what they are: an 835 remittance, a 999 ...), or that holds a
 * 4010 837 (`x12_version`), each at the ST it is about. Other transactions beside 837s are
 * findings, skipped. The claims are read when `each()` is iterated.
 */
export function read837(bytes: Buffer | string): Claims837 {
  const env = readEnvelope(bytes, { count: ['CLM', 'SV1', 'SV2'] });
  const findings = env.findings;
  const chosen: { t: Transaction; summary: Transaction837 }[] = [];
  const kinds: Record<ClaimKind, number> = { professional: 0, institutional: 0 };
  env.transactions.forEach((t, index) => {
    if (t.set_id !== '837' || isDental(t.version)) {
      findings.push({ code: 'other_transaction', message: `transaction at segment ${t.st.index} is ${describeTransaction(t.set_id, t.version)}, not an 837 professional or institutional claim: skipped`, interchange: t.interchange, transaction: null, segment_index: t.st.index, segment_id: 'ST' });
      return;
    }
    if (is4010(t.version)) throw versionError(t);
    const kind = kindOfVersion(t.version);
    const claims = t.counts.CLM ?? 0;
    kinds[kind ?? ((t.counts.SV2 ?? 0) > (t.counts.SV1 ?? 0) ? 'institutional' : 'professional')] += claims;
    chosen.push({ t, summary: { index, control_number: t.control_number, version: t.version, kind, claims, segment: t.st.index } });
  });
  if (chosen.length === 0) throw notAn837(env.transactions);
  const issues: ReadIssue[] = [];
  return {
    separators: env.separators,
    interchanges: env.interchanges,
    segments: env.segments,
    claims: chosen.reduce((n, x) => n + x.summary.claims, 0),
    kinds,
    transactions: chosen.map((x) => x.summary),
    findings,
    issues,
    *each() {
      issues.length = 0;
      for (const { t, summary } of chosen) yield* new ClaimReader(t, summary.index, summary.kind, env.separators, issues).read();
    },
  };
}
