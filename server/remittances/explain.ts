import { Dec, toCents } from '../../datasets/_shared/decimal.js';
import { isoOfYmd } from '../../datasets/_shared/dates.js';
import type { PayerKnowledge } from '../../datasets/payers/queries.js';
import { x12StatusOn, type X12Index } from '../../datasets/x12_codes/queries.js';
import type { MacIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { ownValue } from '../../lib/own.js';
import { carcClassOf } from '../../lib/vocabulary/carc.js';
import { claimStatusOf } from '../../lib/vocabulary/claim_status.js';
import { claimPayer, identifyPayer, judgeClaim, type JudgeContext, type PendingAdjustment, type TxPayer } from './judge.js';
import type { Acknowledgment, RemitAdjustment, RemitClaim, RemitExplanation, RemitFinding, RemitLine, RemitRemark, RemitTransaction, WorklistItem } from './schemas.js';
import { explainAcknowledgments, rejects } from './acks.js';
import type { Segment, Separators, Transaction, X12File } from './x12.js';

/**
 * An 835 explained: every claim, line and adjustment with its code text as of the remittance
 * date, whose amount it is and what to do by when (the one classifier `classifyDenial` with the
 * payer's filing and appeal rules where N1*PR maps to a curated payer), the 835 balancing rules as
 * findings, and a worklist. Pure: the read file, the code lists and payer knowledge in.
 */
export interface ExplainInputs {
  x12: X12Index;
  payers: PayerKnowledge | null;
  /** The MAC jurisdictions, which name Medicare's contractors by number and by name. */
  mac: MacIndex | null;
  /** YYYY-MM-DD: the date deadlines count days to. */
  asOf: string;
  /**
   * Sets each line's links (NCCI edit, MUE, coverage, pricing) before its adjustments are judged:
   * the denial rules read the linked edit's modifier indicator and the MUE's MAI.
   */
  link?: (tx: RemitTransaction, claim: RemitClaim) => Promise<void>;
}

export type Explained = Omit<RemitExplanation, 'reliability'> & { payersMatched: boolean };

/** PLB03-1 provider adjustment reason codes (X12 835 TR3). */
const PLB_REASON: Record<string, string> = {
  '50': 'late charge',
  '51': 'interest penalty charge',
  '72': 'authorized return',
  '90': 'early payment allowance',
  AH: 'origination fee',
  AM: 'applied to borrower’s account',
  AP: 'acceleration of benefits',
  B2: 'rebate',
  B3: 'recovery allowance',
  BD: 'bad debt adjustment',
  BN: 'bonus',
  C5: 'temporary allowance',
  CR: 'capitation interest',
  CS: 'adjustment',
  CT: 'capitation payment',
  CV: 'capital passthru',
  CW: 'certified registered nurse anesthetist passthru',
  DM: 'direct medical education passthru',
  E3: 'withholding',
  FB: 'forwarding balance',
  FC: 'fund allocation',
  GO: 'graduate medical education passthru',
  HM: 'hemophilia clotting factor supplement',
  IP: 'incentive premium payment',
  IR: 'internal revenue service withholding',
  IS: 'interim settlement',
  J1: 'nonreimbursable',
  L3: 'penalty',
  L6: 'interest owed',
  LE: 'levy',
  LS: 'lump sum',
  OA: 'organ acquisition passthru',
  OB: 'offset for affiliated providers',
  PI: 'periodic interim payment',
  PL: 'payment final',
  RA: 'retro-activity adjustment',
  RE: 'return on equity',
  SL: 'student loan repayment',
  TL: 'third party liability',
  WO: 'overpayment recovery',
  WU: 'unspecified recovery',
};

const num = (s: string | undefined): string => (s ?? '').trim();
const opt = (s: string | undefined): string | null => num(s) || null;

/** CCYYMMDD as YYYY-MM-DD (null when not a date). */
function toIso(s: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(num(s));
  return m ? isoOfYmd(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/** `toIso` remembering the dates of one transaction (a file repeats a few dates thousands of times; nothing outlives the call). */
function isoMemo(): (s: string | undefined) => string | null {
  const seen = new Map<string, string | null>();
  return (s) => {
    const t = num(s);
    let iso = seen.get(t);
    if (iso === undefined) seen.set(t, (iso = toIso(t)));
    return iso;
  };
}

class Unparseable extends Error {}

/** An amount element as an exact decimal (an empty element is 0 when `orZero`). */
function money(s: string | undefined, what: string, orZero = false): Dec {
  const t = num(s);
  if (t === '' && orZero) return Dec.ZERO;
  if (!/^-?\d{1,15}(?:\.\d{0,6})?$|^-?\.\d{1,6}$/.test(t)) throw new Unparseable(what);
  return Dec.ofPlain(t);
}

const sum = (xs: Dec[]): Dec => xs.reduce((a, b) => a.add(b), Dec.ZERO);

interface RawAdj {
  group: string;
  reason: string;
  amount: Dec;
  quantity: number | null;
  seg: Segment;
}

interface Ctx {
  in: ExplainInputs;
  sep: Separators;
  findings: RemitFinding[];
  t: number;
  interchange: number;
  componentWarned: boolean;
  payer: TxPayer;
  remitDate: string;
  /** What the judgements of the transaction's adjustments share (dates, memo). */
  judge: JudgeContext;
}

function finding(c: Ctx, code: RemitFinding['code'], severity: RemitFinding['severity'], message: string, seg: Segment, claim: number | null = null, line: number | null = null) {
  c.findings.push({ code, severity, message, loc: { interchange: c.interchange, transaction: c.t, claim, line, segment_index: seg.index, segment_id: seg.id.slice(0, 3) } });
}

/**
 * A composite element's components. A payer that uses another component separator than ISA16
 * (`HC>99213` under ISA16 `:`, LinuxForHealth's secondary-payment sample) is followed, once
 * reported.
 */
function components(c: Ctx, s: string, seg: Segment): string[] {
  const v = s.trim();
  if (v.includes(c.sep.component)) return v.split(c.sep.component);
  const other = /^[A-Z0-9]{2}([^A-Za-z0-9 .\-])/.exec(v);
  if (other && other[1] !== c.sep.element) {
    if (!c.componentWarned) {
      c.componentWarned = true;
      finding(c, 'component_separator_mismatch', 'warning', `segment ${seg.index} (${seg.id}) separates components with '${other[1]}' while the header says '${c.sep.component}': followed`, seg);
    }
    return v.split(other[1]!);
  }
  return [v];
}

function remark(c: Ctx, code: string, seg: Segment, claim: number | null, line: number | null): RemitRemark {
  const r = c.in.x12.byKey.get(`rarc:${code}`);
  if (!r) {
    if (c.in.x12.count > 0) finding(c, 'unknown_code', 'warning', `RARC ${code} (segment ${seg.index}, ${seg.id}) is not in the loaded remark code list`, seg, claim, line);
    return { code, description: null, deactivated: null };
  }
  return { code, description: r.description, deactivated: x12StatusOn(r, c.remitDate).status === 'deactivated' };
}

/** X12's usage note on the CARCs that must travel with a remark code (16, 96, 251 ... in the list of 2026). */
const NEEDS_REMARK = /At least one Remark Code must be provided/i;
/** An alert remark (its text starts `Alert:`) informs; it does not count as the remark such a CARC needs. */
const isAlert = (c: Ctx, code: string) => /^Alert:/i.test(c.in.x12.byKey.get(`rarc:${code}`)?.description ?? '');

/**
 * A CARC whose usage note requires a remark code, on a line (or claim) with none but alerts: the
 * payer has not said what is wrong, which the provider needs before correcting or appealing.
 */
function checkRemarks(c: Ctx, adjs: RawAdj[], remarks: string[], claim: number, line: number | null): void {
  if (remarks.some((r) => !isAlert(c, r))) return;
  const seen = new Set<string>();
  for (const a of adjs) {
    if (seen.has(a.reason) || !NEEDS_REMARK.test(c.in.x12.byKey.get(`carc:${a.reason}`)?.description ?? '')) continue;
    seen.add(a.reason);
    const where = line === null ? `claim ${claim + 1}` : `line ${line + 1} of claim ${claim + 1}`;
    finding(c, 'remark_code_missing', 'warning', `CARC ${a.reason} (segment ${a.seg.index}, CAS) needs at least one remark code that is not an alert (its X12 usage note); ${where} has ${remarks.length ? 'only alerts' : 'none'}: ask the payer what is missing or wrong before correcting or appealing`, a.seg, claim, line);
  }
}

function casOf(seg: Segment): RawAdj[] {
  const group = num(seg.el[0]).toUpperCase();
  const out: RawAdj[] = [];
  for (let k = 1; k < seg.el.length && k < 19; k += 3) {
    const reason = num(seg.el[k]).toUpperCase().replace(/^0+(?=\d)/, '');
    if (!reason) continue;
    const q = num(seg.el[k + 2]);
    out.push({ group, reason, amount: money(seg.el[k + 1], 'CAS amount'), quantity: q && Number.isFinite(Number(q)) ? Number(q) : null, seg });
  }
  if (!group || out.length === 0) throw new Unparseable('CAS without a group and reason');
  return out;
}

/**
 * An adjustment as read, with its code's text as of the remittance date; its remedy is judged once
 * the claim's lines are linked (`judgeClaim`), so it waits in `pending` until then.
 */
function explainAdj(c: Ctx, a: RawAdj, o: { claim: number; line: number | null }, pending: PendingAdjustment[], line: RemitLine | null): RemitAdjustment {
  const row = c.in.x12.byKey.get(`carc:${a.reason}`);
  if (!row && c.in.x12.count > 0) finding(c, 'unknown_code', 'warning', `CARC ${a.reason} (segment ${a.seg.index}, CAS) is not in the loaded reason code list`, a.seg, o.claim, o.line);
  // A literal of one shape (not a spread): a day's file makes hundreds of thousands of these.
  const adj: RemitAdjustment = {
    group: a.group,
    reason: a.reason,
    amount: toCents(a.amount),
    quantity: a.quantity,
    description: row?.description ?? null,
    deactivated: row ? x12StatusOn(row, c.remitDate).status === 'deactivated' : null,
    responsibility: 'undetermined',
    remedy: 'review',
    remedy_reason: '',
    appeal_rights: 'conditional',
    appeal_condition: null,
    deadline: null,
    rule_id: '',
    other_payer: null,
    citations: [],
  };
  pending.push({ target: adj, line });
  return adj;
}

interface LineAcc {
  seg: Segment;
  qualifier: string | null;
  code: string | null;
  modifiers: string[];
  revenue: string | null;
  units: number;
  /** SVC07: the units as billed, when the payer paid another number (anesthesia: the minutes billed). */
  submittedUnits: number | null;
  charged: Dec;
  paid: Dec;
  original: string | null;
  from: string | null;
  to: string | null;
  control: string | null;
  allowed: Dec | null;
  adjs: RawAdj[];
  remarks: { code: string; seg: Segment }[];
}

interface ClaimAcc {
  seg: Segment;
  pcn: string;
  status: string;
  charged: Dec;
  paid: Dec;
  patient: Dec;
  filing: string | null;
  icn: string | null;
  facility: string | null;
  from: string | null;
  to: string | null;
  received: string | null;
  crossover: { name: string | null; id: string | null } | null;
  adjs: RawAdj[];
  remarks: { code: string; seg: Segment }[];
  lines: LineAcc[];
}

/** Where explained claims go, one by one in file order, as soon as each is explained. */
export interface ClaimSink {
  /** `tx` is the claim's transaction (its `claims` filled only by a sink that keeps them). */
  claim(tx: RemitTransaction, claim: RemitClaim, index: number): Promise<void>;
  /**
   * A transaction's header was read (`begin`: payer, payee, payment known) or its last segment
   * (`end`: its provider adjustments known too), so a sink can write it around its claims.
   */
  transaction?(tx: RemitTransaction, phase: 'begin' | 'end'): Promise<void>;
}

/**
 * A running sum of amounts already in cents (the answer's numbers): in integer cents while they
 * are small, exactly in `Dec` past that (an absurd amount in a file is summed right too).
 */
class CentSum {
  private cents = 0;
  private big: Dec | null = null;

  add(x: number): this {
    const c = Math.round(x * 100);
    if (!this.big && Math.abs(x) < 1e11 && Number.isSafeInteger(this.cents + c)) this.cents += c;
    else this.big = (this.big ?? Dec.of(this.cents).mul('0.01')).add(x);
    return this;
  }

  get value(): number {
    return this.big ? toCents(this.big) : this.cents / 100;
  }
}

/** The answer's counts, totals and worklist, fed claim by claim (a streamed file never holds its claims). */
class Tally {
  claims = 0;
  lines = 0;
  adjustments = 0;
  readonly charged = new CentSum();
  readonly paid = new CentSum();
  readonly patient = new CentSum();
  readonly byGroup = new Map<string, CentSum>();
  private readonly work = new Map<string, { item: Omit<WorklistItem, 'amount'>; amount: CentSum }>();

  private add(source: WorklistItem['source'], payer: string | null, group: string, reason: string, remedy: WorklistItem['remedy'], amount: number | null, deadline: string | null): void {
    const key = `${source}\u0000${payer}\u0000${group}\u0000${reason}\u0000${remedy}`;
    let w = this.work.get(key);
    if (!w) this.work.set(key, (w = { item: { source, payer, group, reason, remedy, count: 0, earliest_deadline: null }, amount: new CentSum() }));
    w.item.count++;
    if (amount !== null) w.amount.add(amount);
    if (deadline && (w.item.earliest_deadline === null || deadline < w.item.earliest_deadline)) w.item.earliest_deadline = deadline;
  }

  claim(tx: RemitTransaction, cl: RemitClaim): void {
    this.claims++;
    this.charged.add(cl.charged);
    this.paid.add(cl.paid);
    this.patient.add(cl.patient_responsibility);
    this.lines += cl.lines.length;
    const payer = tx.payer.slug ?? tx.payer.name;
    const each = (a: RemitAdjustment) => {
      this.adjustments++;
      let g = this.byGroup.get(a.group);
      if (!g) this.byGroup.set(a.group, (g = new CentSum()));
      g.add(a.amount);
      if (a.remedy !== 'no_action') this.add('835', payer, a.group, a.reason, a.remedy, a.amount, a.deadline?.date ?? null);
    };
    cl.adjustments.forEach(each);
    for (const l of cl.lines) {
      l.adjustments.forEach(each);
      // A line allowed less than the fee schedule pays: the shortfall is worked like a denial.
      const p = l.pricing;
      if (p?.status === 'underpaid' && p.remedy && p.difference !== null) this.add('underpayment', payer, 'pricing', l.code ?? '', p.remedy.remedy, -p.difference, p.remedy.deadline?.date ?? null);
    }
  }

  /** Rejections before adjudication: corrected and resubmitted, on the same list. */
  acknowledgments(acks: Acknowledgment[]): void {
    for (const a of acks) {
      for (const t of a.transactions) if (t.remedy && t.remedy.remedy !== 'no_action') this.add('999', null, t.status?.code ?? '', t.errors[0]?.code ?? '', t.remedy.remedy, null, t.remedy.deadline?.date ?? null);
      for (const c of a.claims) {
        if (!c.remedy || c.remedy.remedy === 'no_action') continue;
        const s = c.statuses.find(rejects) ?? c.statuses[0];
        this.add('277CA', a.payer?.slug ?? a.payer?.name ?? null, s?.category ?? '', s?.status_code ?? '', c.remedy.remedy, c.charged, c.remedy.deadline?.date ?? null);
      }
    }
  }

  worklist(): WorklistItem[] {
    return [...this.work.values()]
      .map((w) => ({ ...w.item, amount: w.amount.value }))
      .sort((a, b) => (a.earliest_deadline ?? '9999').localeCompare(b.earliest_deadline ?? '9999') || b.amount - a.amount || a.reason.localeCompare(b.reason));
  }
}

/**
 * One 835 transaction, read segment by segment: its header (payer, payee, payment), then each
 * claim explained and handed to `sink` as soon as its segments are read, then its provider
 * adjustments and balancing. Only the claim being read is held.
 */
async function explainTransaction(tx: Transaction, t: number, file: X12File, inputs: ExplainInputs, findings: RemitFinding[], tally: Tally, sink: ClaimSink): Promise<RemitTransaction> {
  const header: Segment[] = [];
  let c: Ctx | null = null;
  let out: RemitTransaction | null = null;
  let bpr: Segment | undefined;
  let paymentAmount = Dec.of(0);
  /** The header read (at the first CLP or PLB, or the end): the payer, the remittance date and the answer's transaction. */
  const begin = (): Ctx => {
    bpr = header.find((s) => s.id === 'BPR');
    const trn = header.find((s) => s.id === 'TRN');
    const dtm405 = header.find((s) => s.id === 'DTM' && num(s.el[0]) === '405');
    const n1pr = header.find((s) => s.id === 'N1' && num(s.el[0]) === 'PR');
    const n1pe = header.find((s) => s.id === 'N1' && num(s.el[0]) === 'PE');
    const ref2u = header.find((s) => s.id === 'REF' && num(s.el[0]) === '2U');
    const payerName = opt(n1pr?.el[1]);
    const payerId = opt(n1pr?.el[3]) ?? opt(ref2u?.el[1]);
    const payer = identifyPayer(inputs.payers, inputs.mac, { name: payerName, id: payerId, ids: [opt(n1pr?.el[3]), opt(ref2u?.el[1])] });
    const dated = toIso(bpr?.el[15]) ?? toIso(dtm405?.el[1]) ?? toIso(tx.group_date ?? undefined);
    // Undated (no BPR16, DTM*405 or GS04): codes are judged as of the as-of date.
    const judge: JudgeContext = { x12: inputs.x12, payers: inputs.payers, asOf: inputs.asOf, noticeDate: dated, determinationDate: toIso(dtm405?.el[1]) ?? toIso(bpr?.el[15]), memo: new Map() };
    const ctx: Ctx = { in: inputs, sep: file.separators, findings, t, interchange: tx.interchange, componentWarned: false, payer, remitDate: dated ?? inputs.asOf, judge };
    if (bpr) {
      try {
        paymentAmount = money(bpr.el[1], 'BPR02', true);
      } catch {
        finding(ctx, 'unparseable_segment', 'error', `segment ${bpr.index} (BPR): the payment amount is not a number`, bpr);
      }
    }
    out = {
      interchange: tx.interchange,
      control_number: tx.control_number,
      version: tx.version,
      remittance_date: dated,
      payer: { name: payerName, id: payerId, slug: payer.row?.slug ?? null, type: payer.row?.payer_type ?? null, identified_by: payer.by, medicare_jurisdictions: payer.jurisdictions },
      payee: { name: opt(n1pe?.el[1]), npi: n1pe && num(n1pe.el[2]) === 'XX' ? opt(n1pe.el[3]) : null },
      payment: { method: opt(bpr?.el[3]), amount: toCents(paymentAmount), credit_debit: opt(bpr?.el[2]), date: toIso(bpr?.el[15]), trace_number: opt(trn?.el[1]) },
      provider_adjustments: [],
      claims: [],
    };
    return ctx;
  };

  const plbs: RemitTransaction['provider_adjustments'] = [];
  const plbAmounts: Dec[] = [];
  const plbRefs: { i: number; ref: string | null }[] = [];
  // The first claim each patient control number or payer claim number names (a PLB03-2 reference).
  const byRef = new Map<string, number>();
  const dateOf = isoMemo();
  let claimsPaid = Dec.of(0);
  let claims = 0;
  let claim: ClaimAcc | null = null;
  let line: LineAcc | null = null;
  let skipClaim = false;
  /** The claim just read, explained and handed on. */
  const finish = async () => {
    if (!claim || !c || !out) return;
    const ci = claims++;
    const acc = claim;
    const { claim: done, pending } = explainClaim(c, acc, ci);
    claim = null;
    line = null;
    for (const ref of [done.patient_control_number, done.payer_claim_control_number]) if (ref && !byRef.has(ref)) byRef.set(ref, ci);
    claimsPaid = claimsPaid.add(done.paid);
    // Linked first: the denial rules read the line's NCCI edit and MUE, and its pricing.
    if (inputs.link) await inputs.link(out, done);
    judgeClaim(c.judge, done, claimPayer(c.payer, acc.filing, inputs.payers), pending);
    tally.claim(out, done);
    await sink.claim(out, done, ci);
  };
  for (const seg of tx.each()) {
    if (!c) {
      if (seg.id !== 'CLP' && seg.id !== 'PLB' && seg.id !== 'SE') {
        header.push(seg);
        continue;
      }
      c = begin();
      await sink.transaction?.(out!, 'begin');
    }
    try {
      switch (seg.id) {
        case 'CLP': {
          await finish();
          skipClaim = false;
          const pcn = num(seg.el[0]);
          claim = {
            seg,
            pcn,
            status: num(seg.el[1]),
            charged: money(seg.el[2], 'CLP03', true),
            paid: money(seg.el[3], 'CLP04', true),
            patient: money(seg.el[4], 'CLP05', true),
            filing: opt(seg.el[5]),
            icn: opt(seg.el[6]),
            facility: opt(seg.el[7]),
            from: null,
            to: null,
            received: null,
            crossover: null,
            adjs: [],
            remarks: [],
            lines: [],
          };
          break;
        }
        case 'SVC': {
          if (!claim || skipClaim) break;
          const comp = components(c, seg.el[0] ?? '', seg);
          const orig = seg.el[5] ? components(c, seg.el[5], seg) : null;
          // SVC05 units: a count with up to 6 decimals, negative in a reversal (absent: 1); anything else does not read.
          const units = num(seg.el[4]);
          if (units && !/^-?\d{1,9}(?:\.\d{1,6})?$/.test(units)) throw new Unparseable('SVC05 units');
          line = {
            seg,
            qualifier: opt(comp[0]),
            code: opt(comp[1]),
            modifiers: comp.slice(2, 6).map((m) => m.trim()).filter(Boolean),
            revenue: opt(seg.el[3]),
            units: units ? Number(units) : 1,
            submittedUnits: /^-?\d{1,9}(?:\.\d{1,6})?$/.test(num(seg.el[6])) ? Number(num(seg.el[6])) : null,
            charged: money(seg.el[1], 'SVC02', true),
            paid: money(seg.el[2], 'SVC03', true),
            original: orig ? opt(orig[1]) : null,
            from: null,
            to: null,
            control: null,
            allowed: null,
            adjs: [],
            remarks: [],
          };
          claim.lines.push(line);
          break;
        }
        case 'CAS': {
          if (!claim || skipClaim) break;
          (line ? line.adjs : claim.adjs).push(...casOf(seg));
          break;
        }
        case 'DTM': {
          const q = num(seg.el[0]);
          const d = dateOf(seg.el[1]);
          if (line) {
            if (q === '472') line.from = line.to = d;
            else if (q === '150') line.from = d;
            else if (q === '151') line.to = d;
          } else if (claim) {
            if (q === '232') claim.from = d;
            else if (q === '233') claim.to = d;
            else if (q === '050') claim.received = d;
          }
          break;
        }
        case 'NM1':
          // 2100 NM1*TT: the crossover carrier the claim was forwarded to (NM103 name, NM109 id).
          if (claim && !line && num(seg.el[0]) === 'TT') claim.crossover = { name: opt(seg.el[2]), id: opt(seg.el[8]) };
          break;
        case 'AMT':
          if (line && num(seg.el[0]) === 'B6') line.allowed = money(seg.el[1], 'AMT02');
          break;
        case 'REF':
          if (line && num(seg.el[0]) === '6R') line.control = opt(seg.el[1]);
          break;
        case 'LQ':
          if (line && num(seg.el[0]) === 'HE' && num(seg.el[1])) line.remarks.push({ code: num(seg.el[1]).toUpperCase(), seg });
          break;
        case 'MIA':
          if (claim) for (const k of [4, 19, 20, 21, 22, 23]) if (num(seg.el[k])) claim.remarks.push({ code: num(seg.el[k]).toUpperCase(), seg });
          break;
        case 'MOA':
          if (claim) for (const k of [2, 3, 4, 5, 6]) if (num(seg.el[k])) claim.remarks.push({ code: num(seg.el[k]).toUpperCase(), seg });
          break;
        case 'PLB': {
          await finish();
          for (let k = 2; k + 1 < seg.el.length; k += 2) {
            if (!num(seg.el[k])) continue;
            const comp = components(c, seg.el[k]!, seg);
            const reason = num(comp[0]).toUpperCase();
            const amount = money(seg.el[k + 1], 'PLB amount');
            plbAmounts.push(amount);
            plbRefs.push({ i: plbs.length, ref: opt(comp[1]) });
            plbs.push({
              provider_id: opt(seg.el[0]),
              fiscal_period_date: toIso(seg.el[1]),
              reason,
              description: ownValue(PLB_REASON, reason) ?? null,
              reference: opt(comp[1]),
              claim: null,
              amount: toCents(amount),
            });
          }
          break;
        }
        default:
      }
    } catch (e) {
      if (!(e instanceof Unparseable)) throw e;
      finding(c, 'unparseable_segment', 'error', `segment ${seg.index} (${seg.id.slice(0, 3)}) could not be read (${e.message}): skipped${seg.id === 'CLP' ? ' with its claim' : seg.id === 'SVC' ? ' with its line' : ''}`, seg, claim ? claims : null);
      if (seg.id === 'CLP') {
        claim = null;
        skipClaim = true;
      }
      if (seg.id === 'SVC') line = null;
    }
  }
  if (!c) {
    c = begin();
    await sink.transaction?.(out!, 'begin');
  }
  await finish();
  const o = out! as RemitTransaction;
  for (const r of plbRefs) {
    const i = r.ref ? byRef.get(r.ref) : undefined;
    if (i !== undefined) plbs[r.i]!.claim = i;
  }
  o.provider_adjustments = plbs;
  const expected = claimsPaid.sub(sum(plbAmounts));
  if (bpr && paymentAmount.compare(expected) !== 0) {
    finding(c, 'transaction_unbalanced', 'warning', `BPR02 ${toCents(paymentAmount).toFixed(2)} is not the claims' payments less provider adjustments (${toCents(expected).toFixed(2)})`, bpr);
  }
  await sink.transaction?.(o, 'end');
  return o;
}

/** What a line's allowed amount adds to its payment: the patient's share, reductions taken after the allowed amount, and on a secondary claim the prior payer's impact. */
function afterAllowed(a: RawAdj, secondary: boolean): boolean {
  const cls = carcClassOf(a.reason);
  return (a.group === 'PR' && cls === 'patient_share') || cls === 'sequestration' || cls === 'legislated_penalty' || (secondary && a.reason === '23');
}

/**
 * A claim's accumulated segments explained: its lines and adjustments read (their remedies wait in
 * `pending` for `judgeClaim`), its balancing checked. A line's allowed amount is AMT*B6, else its
 * payment plus what `afterAllowed` counts (a line assigned wholly to the patient for a denial, such
 * as PR-50, is allowed nothing).
 */
function explainClaim(c: Ctx, cl: ClaimAcc, ci: number): { claim: RemitClaim; pending: PendingAdjustment[] } {
  const pending: PendingAdjustment[] = [];
  const position = claimStatusOf(cl.status)?.position;
  const secondary = position === 'secondary' || position === 'tertiary';
  const lines: RemitLine[] = cl.lines.map((l, li) => {
    const adjSum = sum(l.adjs.map((a) => a.amount));
    if (l.charged.sub(l.paid).compare(adjSum) !== 0) {
      finding(c, 'line_unbalanced', 'warning', `line ${li + 1} of claim ${ci + 1}: charge ${toCents(l.charged).toFixed(2)} less paid ${toCents(l.paid).toFixed(2)} is ${toCents(l.charged.sub(l.paid)).toFixed(2)}, its adjustments total ${toCents(adjSum).toFixed(2)}`, l.seg, ci, li);
    }
    const computed = l.paid.add(sum(l.adjs.filter((a) => afterAllowed(a, secondary)).map((a) => a.amount)));
    // The line's remarks, else its claim's (MOA/MIA), as the classifier reads them.
    checkRemarks(c, l.adjs, (l.remarks.length ? l.remarks : cl.remarks).map((r) => r.code), ci, li);
    const line: RemitLine = {
      code: l.code,
      code_qualifier: l.qualifier,
      modifiers: l.modifiers,
      revenue_code: l.revenue,
      units: l.units,
      submitted_units: l.submittedUnits,
      charged: toCents(l.charged),
      paid: toCents(l.paid),
      allowed: toCents(l.allowed ?? computed),
      allowed_source: l.allowed ? 'amt_b6' : 'computed',
      original_code: l.original && l.original !== l.code ? l.original : null,
      service_from: l.from,
      service_to: l.to,
      control_number: l.control,
      adjustments: [],
      remarks: l.remarks.map((r) => remark(c, r.code, r.seg, ci, li)),
    };
    line.adjustments = l.adjs.map((a) => explainAdj(c, a, { claim: ci, line: li }, pending, line));
    return line;
  });
  checkRemarks(c, cl.adjs, cl.remarks.map((r) => r.code), ci, null);
  const all = sum([...cl.adjs, ...cl.lines.flatMap((l) => l.adjs)].map((a) => a.amount));
  if (cl.charged.sub(cl.paid).compare(all) !== 0) {
    finding(c, 'claim_unbalanced', 'warning', `claim ${ci + 1}: charge ${toCents(cl.charged).toFixed(2)} less paid ${toCents(cl.paid).toFixed(2)} is ${toCents(cl.charged.sub(cl.paid)).toFixed(2)}, its claim and line adjustments total ${toCents(all).toFixed(2)}`, cl.seg, ci);
  }
  const claim: RemitClaim = {
    patient_control_number: cl.pcn,
    status: { code: cl.status, meaning: claimStatusOf(cl.status)?.meaning ?? 'unknown claim status code' },
    charged: toCents(cl.charged),
    paid: toCents(cl.paid),
    patient_responsibility: toCents(cl.patient),
    claim_filing_indicator: cl.filing,
    payer_claim_control_number: cl.icn,
    facility_code: cl.facility,
    statement_from: cl.from,
    statement_to: cl.to,
    received: cl.received,
    crossover_payer: cl.crossover,
    adjustments: [],
    remarks: cl.remarks.map((r) => remark(c, r.code, r.seg, ci, null)),
    lines,
  };
  claim.adjustments = cl.adjs.map((a) => explainAdj(c, a, { claim: ci, line: null }, pending, null));
  return { claim, pending };
}

const READER_SEVERITY: Record<string, RemitFinding['severity']> = { other_transaction: 'info', segment_outside_transaction: 'warning' };

/** Keeps each claim in its transaction: the whole answer (the route, `--format json`). */
const KEEP: ClaimSink = {
  async claim(tx, claim) {
    tx.claims.push(claim);
  },
};

/**
 * The explanation of a read 835 file (without the reliability object, which the route adds).
 * Each claim goes to `sink` as soon as it is explained (by default kept in its transaction); the
 * summary and worklist are tallied as they pass, so a sink that drops claims holds none of them.
 */
export async function explainRemittance(file: X12File, inputs: ExplainInputs, sink: ClaimSink = KEEP): Promise<Explained> {
  const findings: RemitFinding[] = file.findings.map((f) => ({
    code: f.code,
    severity: ownValue(READER_SEVERITY, f.code) ?? 'warning',
    message: f.message,
    loc: { interchange: f.interchange, transaction: f.transaction, claim: null, line: null, segment_index: f.segment_index, segment_id: f.segment_id },
  }));
  const tally = new Tally();
  const transactions: RemitTransaction[] = [];
  for (const [t, tx] of file.transactions.entries()) transactions.push(await explainTransaction(tx, t, file, inputs, findings, tally, sink));
  const acknowledgments = explainAcknowledgments(file.acknowledgments, file.separators, { payers: inputs.payers, asOf: inputs.asOf, match: (name, id) => identifyPayer(inputs.payers, inputs.mac, { name, id, ids: [id] }).row });
  tally.acknowledgments(acknowledgments);
  findings.sort((a, b) => a.loc.segment_index - b.loc.segment_index);
  return {
    as_of: inputs.asOf,
    summary: {
      interchanges: file.interchanges,
      transactions: transactions.length,
      claims: tally.claims,
      service_lines: tally.lines,
      adjustments: tally.adjustments,
      totals: {
        charged: tally.charged.value,
        paid: tally.paid.value,
        patient_responsibility: tally.patient.value,
        adjusted_by_group: Object.fromEntries([...tally.byGroup].sort(([a], [b]) => a.localeCompare(b)).map(([g, v]) => [g, v.value])),
      },
      findings: findings.length,
      acknowledgments: acknowledgments.length,
    },
    transactions,
    acknowledgments,
    findings,
    worklist: tally.worklist(),
    payersMatched: transactions.some((t) => t.payer.slug !== null) || acknowledgments.some((a) => a.payer?.slug),
  };
}
