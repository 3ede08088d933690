import { Dec, toCents } from '../../lib/decimal.js';
import type { PayerKnowledge } from '../../datasets/payers/queries.js';
import { x12StatusOn, type X12Index } from '../../datasets/x12_codes/queries.js';
import type { MacIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { dollars } from '../../lib/money_text.js';
import { ownValue } from '../../lib/own.js';
import { PLB_REASONS } from '../../lib/vocabulary/plb_reasons.js';
import { carcClassOf } from '../../lib/vocabulary/carc.js';
import { claimStatusOf } from '../../lib/vocabulary/claim_status.js';
import { explainAcknowledgments } from './acks.js';
import { Batch, type PairingClaim } from './batch.js';
import { checkNpi, CLAIM_CHECKS } from './checks.js';
import { claimPayer, identifyPayer, judgeClaim, type JudgeContext, type PendingAdjustment } from './judge.js';
import { finding, isoMemo, money, num, opt, sum, toIso, Unparseable, type Ctx, type RawAdj, components } from './reading.js';
import { handlingOf, reconcile } from './reconcile.js';
import { Tally } from './tally.js';
import type { Redactor } from './redact.js';
import type { RemitAdjustment, RemitClaim, RemitExplanation, RemitFinding, RemitLine, RemitPerson, RemitRemark, RemitTransaction } from './schemas.js';
import { CLAIM_AMT, CLAIM_QTY, CLAIM_REF, LINE_AMT, LINE_REF } from '../../lib/vocabulary/x12_qualifiers.js';
import { CLAIM_SEGMENTS, meaningOf, readClp, type ClaimAcc, type ClaimReading, type Coded, type LineAcc, type Nm1Name } from './segments.js';
import type { Segment, Transaction, X12File } from './x12.js';

/**
 * An 835 explained: every claim, line and adjustment with its code text as of the remittance
 * date, whose amount it is and what to do by when (the denial rules table, with the payer's filing
 * and appeal rules), the 835's identifiers and amounts, the payment reconciled with its claims,
 * reversals paired with their corrections, copies of a remittance caught, validation findings, and
 * a worklist. Pure: the read file, the code lists and payer knowledge in. Each claim segment is read
 * by its unit in `segments.ts`, each claim checked by the units in `checks.ts`.
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
  /** What the call remembers across files (copies, reversals); a call of one file has its own. */
  batch?: Batch;
  /** `redact`: identifiers replaced by tokens stable within the answer. */
  redact?: Redactor | null;
}

export type Explained = Omit<RemitExplanation, 'reliability'> & { payersMatched: boolean };



/** How many claims of its transaction a reversal holds back (in order) while it waits for its correction. */
export const REVERSAL_HOLD = 1000;

/**
 * An adjustment as read, with its code's text as of the remittance date; its remedy is judged once
 * the claim's lines are linked (`judgeClaim`), so it waits in `pending` until then.
 */
function explainAdj(c: Ctx, a: RawAdj, o: { claim: number; line: number | null }, pending: PendingAdjustment[], line: RemitLine | null): RemitAdjustment {
  const row = c.x12.byKey.get(`carc:${a.reason}`);
  if (!row && c.x12.count > 0) finding(c, 'unknown_code', 'warning', `CARC ${a.reason} (segment ${a.seg.index}, CAS) is not in the loaded reason code list`, a.seg, o.claim, o.line);
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

function remark(c: Ctx, code: string, seg: Segment, claim: number | null, line: number | null): RemitRemark {
  const r = c.x12.byKey.get(`rarc:${code}`);
  if (!r) {
    if (c.x12.count > 0) finding(c, 'unknown_code', 'warning', `RARC ${code} (segment ${seg.index}, ${seg.id}) is not in the loaded remark code list`, seg, claim, line);
    return { code, description: null, deactivated: null };
  }
  return { code, description: r.description, deactivated: x12StatusOn(r, c.remitDate).status === 'deactivated' };
}

/** What a line's allowed amount adds to its payment: the patient's share, reductions taken after the allowed amount, and on a secondary claim the prior payer's impact. */
function afterAllowed(a: RawAdj, secondary: boolean): boolean {
  const cls = carcClassOf(a.reason);
  return (a.group === 'PR' && cls === 'patient_share') || cls === 'sequestration' || cls === 'legislated_penalty' || (secondary && a.reason === '23');
}

/** NM1 as the answer names a person: "LAST, FIRST MIDDLE SUFFIX". */
function personOf(p: Nm1Name | undefined): RemitPerson | null {
  if (!p) return null;
  const given = [p.first, p.middle, p.suffix].filter(Boolean).join(' ');
  const name = p.last ? (given ? `${p.last}, ${given}` : p.last) : given || null;
  return { name, last_name: p.last, first_name: p.first, middle_name: p.middle, suffix: p.suffix, id_qualifier: p.qualifier, id: p.id };
}

const coded = <T, U>(xs: Coded<T>[], table: Readonly<Record<string, string>>, as: (v: T) => U) => xs.map((x) => ({ qualifier: x.qualifier, meaning: meaningOf(table, x.qualifier), value: as(x.value) }));
const refs = (xs: Coded<string>[], table: Readonly<Record<string, string>>) => coded(xs, table, (v) => v);
const amounts = (xs: Coded<Dec>[], table: Readonly<Record<string, string>>) => coded(xs, table, toCents).map(({ value, ...x }) => ({ ...x, amount: value }));
const quantities = (xs: Coded<number>[], table: Readonly<Record<string, string>>) => coded(xs, table, (v) => v).map(({ value, ...x }) => ({ ...x, quantity: value }));

/** A line explained: its amounts, allowed amount, identifiers and adjustments (remedies pending). */
function explainLine(c: Ctx, l: LineAcc, ci: number, li: number, secondary: boolean, pending: PendingAdjustment[]): RemitLine {
  const computed = l.paid.add(sum(l.adjs.filter((a) => afterAllowed(a, secondary)).map((a) => a.amount)));
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
    rendering_provider_npi: l.renderingNpi?.value ?? null,
    references: refs(l.refs, LINE_REF),
    amounts: amounts(l.amounts, LINE_AMT),
    quantities: quantities(l.quantities, CLAIM_QTY),
    adjustments: [],
    remarks: l.remarks.map((r) => remark(c, r.code, r.seg, ci, li)),
  };
  line.adjustments = l.adjs.map((a) => explainAdj(c, a, { claim: ci, line: li }, pending, line));
  return line;
}

/**
 * A claim's accumulated segments explained: its lines and adjustments read (their remedies wait in
 * `pending` for `judgeClaim`), its identifiers and amounts, and every check of `CLAIM_CHECKS`. A
 * line's allowed amount is AMT*B6, else its payment plus what `afterAllowed` counts (a line
 * assigned wholly to the patient for a denial, such as PR-50, is allowed nothing).
 */
function explainClaim(c: Ctx, cl: ClaimAcc, ci: number): { claim: RemitClaim; pending: PendingAdjustment[] } {
  const pending: PendingAdjustment[] = [];
  const position = claimStatusOf(cl.status)?.position;
  const secondary = position === 'secondary' || position === 'tertiary';
  for (const check of CLAIM_CHECKS) check(c, cl, ci);
  const lines = cl.lines.map((l, li) => explainLine(c, l, ci, li, secondary, pending));
  const patient = personOf(cl.people.get('QC'));
  const insured = personOf(cl.people.get('IL'));
  const rendering = cl.people.get('82');
  const interest = cl.amounts.filter((a) => a.qualifier === 'I');
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
    claim_frequency: cl.frequency,
    drg: cl.drg ? { code: cl.drg.code, weight: cl.drg.weight, discharge_fraction: cl.drg.fraction } : null,
    patient,
    insured,
    corrected_patient: personOf(cl.people.get('74')),
    // The patient's member id, never a social security number (NM108 34); else the subscriber's.
    member_id: (patient?.id_qualifier !== '34' ? patient?.id : null) ?? (insured?.id_qualifier !== '34' ? insured?.id : null) ?? null,
    rendering_provider: rendering ? { name: personOf(rendering)!.name, npi: rendering.qualifier === 'XX' ? rendering.id : null, id_qualifier: rendering.qualifier, id: rendering.id } : null,
    original_reference: cl.originalRef,
    references: refs(cl.refs, CLAIM_REF),
    amounts: amounts(cl.amounts, CLAIM_AMT),
    interest: interest.length ? toCents(sum(interest.map((a) => a.value))) : null,
    quantities: quantities(cl.quantities, CLAIM_QTY),
    inpatient: cl.inpatient as RemitClaim['inpatient'],
    outpatient: cl.outpatient as RemitClaim['outpatient'],
    reversal_of: null,
    corrected_by: null,
    net_paid_change: null,
    adjustments: [],
    remarks: cl.remarks.map((r) => remark(c, r.code, r.seg, ci, null)),
    lines,
  };
  claim.adjustments = cl.adjs.map((a) => explainAdj(c, a, { claim: ci, line: null }, pending, null));
  return { claim, pending };
}

/** Where explained claims go, one by one in file order, as soon as each is explained. */
export interface ClaimSink {
  /** `tx` is the claim's transaction (its `claims` filled only by a sink that keeps them). */
  claim(tx: RemitTransaction, claim: RemitClaim, index: number): Promise<void>;
  /**
   * A transaction's header was read (`begin`: payer, payee, payment known) or its last segment
   * (`end`: its provider adjustments and reconciliation known too), so a sink can write it around
   * its claims.
   */
  transaction?(tx: RemitTransaction, phase: 'begin' | 'end'): Promise<void>;
}

/** The transaction's header read: the payer, payee, payment and remittance date, checked. */
function headerOf(header: Segment[], tx: Transaction, t: number, file: X12File, inputs: ExplainInputs, findings: RemitFinding[]): { c: Ctx; out: RemitTransaction; bpr: Segment | undefined; amount: Dec } {
  const find = (id: string, q?: string) => header.find((s) => s.id === id && (q === undefined || num(s.el[0]) === q));
  const bpr = find('BPR');
  const trn = find('TRN');
  const dtm405 = find('DTM', '405');
  const n1pr = find('N1', 'PR');
  const n1pe = find('N1', 'PE');
  const ref2u = find('REF', '2U');
  // The payee loop (1000B): N1*PE and the segments up to the next N1.
  const payeeLoop = n1pe ? header.slice(header.indexOf(n1pe) + 1).filter((_, i, xs) => !xs.slice(0, i + 1).some((s) => s.id === 'N1')) : [];
  const payerName = opt(n1pr?.el[1]);
  const payerId = opt(n1pr?.el[3]) ?? opt(ref2u?.el[1]);
  const payer = identifyPayer(inputs.payers, inputs.mac, { name: payerName, id: payerId, ids: [opt(n1pr?.el[3]), opt(ref2u?.el[1])] });
  const dated = toIso(bpr?.el[15]) ?? toIso(dtm405?.el[1]) ?? toIso(tx.group_date ?? undefined);
  // Undated (no BPR16, DTM*405 or GS04): codes are judged as of the as-of date.
  const judge: JudgeContext = { x12: inputs.x12, payers: inputs.payers, asOf: inputs.asOf, noticeDate: dated, determinationDate: toIso(dtm405?.el[1]) ?? toIso(bpr?.el[15]), memo: new Map() };
  const c: Ctx = { in: inputs, x12: inputs.x12, sep: file.separators, findings, t, interchange: tx.interchange, version: tx.version, componentWarned: false, payer, remitDate: dated ?? inputs.asOf, datedRemit: dated, judge };
  let amount = Dec.ZERO;
  if (bpr) {
    try {
      amount = money(bpr.el[1], 'BPR02', true);
    } catch {
      finding(c, 'unparseable_segment', 'error', `segment ${bpr.index} (BPR): the payment amount is not a number`, bpr);
    }
    if (num(bpr.el[15]) && !toIso(bpr.el[15])) finding(c, 'invalid_date', 'error', `segment ${bpr.index} (BPR): BPR16, the payment's effective date, is not a calendar date (CCYYMMDD): the remittance is dated by ${dtm405 ? 'DTM*405' : tx.group_date ? 'GS04' : 'the as-of date'}`, bpr);
  }
  const qual = opt(n1pe?.el[2])?.toUpperCase() ?? null;
  const npi = qual === 'XX' ? opt(n1pe?.el[3]) : null;
  if (n1pe) checkNpi(c, npi, n1pe, 'payee');
  const tj = payeeLoop.find((s) => s.id === 'REF' && num(s.el[0]) === 'TJ');
  const handling = opt(bpr?.el[0])?.toUpperCase() ?? null;
  const method = opt(bpr?.el[3]);
  if (bpr && (handling === 'H' || method === 'NON')) finding(c, 'notification_only', 'info', `segment ${bpr.index} (BPR): a notification (${handling === 'H' ? 'BPR01 H' : 'BPR04 NON'}): no money moves with this remittance; post its adjustments without a deposit`, bpr);
  const out: RemitTransaction = {
    interchange: tx.interchange,
    control_number: tx.control_number,
    version: tx.version,
    remittance_date: dated,
    payer: { name: payerName, id: payerId, slug: payer.row?.slug ?? null, type: payer.row?.payer_type ?? null, identified_by: payer.by, medicare_jurisdictions: payer.jurisdictions },
    payee: { name: opt(n1pe?.el[1]), npi, tin: (qual === 'FI' ? opt(n1pe?.el[3]) : null) ?? opt(tj?.el[1]), id_qualifier: qual, id: opt(n1pe?.el[3]) },
    payment: { handling: handlingOf(handling), method, amount: toCents(amount), credit_debit: opt(bpr?.el[2]), date: toIso(bpr?.el[15]), trace_number: opt(trn?.el[1]), originating_company_id: opt(trn?.el[2]) },
    duplicate_of: null,
    provider_adjustments: [],
    claims: [],
    reconciliation: reconcile({ handling: null, method: null, creditDebit: null, amount: Dec.ZERO, claimsPaid: Dec.ZERO, interest: Dec.ZERO, plb: [], plbAmounts: [] }),
  };
  return { c, out, bpr, amount };
}

/**
 * One 835 transaction, read segment by segment: its header (payer, payee, payment), then each
 * claim explained and handed to the sink as soon as its segments are read (a reversal holds the
 * claims after it back until its correction is read, at most `REVERSAL_HOLD`), then its provider
 * adjustments, reconciliation and balancing. Only the claims being read or held are kept.
 */
class TransactionReader {
  private readonly header: Segment[] = [];
  private c: Ctx | null = null;
  private out: RemitTransaction | null = null;
  private bpr: Segment | undefined;
  private amount = Dec.ZERO;
  private duplicate = false;
  private readonly plbs: RemitTransaction['provider_adjustments'] = [];
  private readonly plbAmounts: Dec[] = [];
  private readonly plbRefs: { i: number; ref: string | null }[] = [];
  /** The first claim each patient control number or payer claim number names (a PLB03-2 reference). */
  private readonly byRef = new Map<string, number>();
  private readonly dateOf = isoMemo();
  private claimsPaid = Dec.ZERO;
  private interest = Dec.ZERO;
  private claims = 0;
  private reading: ClaimReading | null = null;
  private skipClaim = false;
  private readonly held: { claim: RemitClaim; ci: number }[] = [];

  constructor(
    private readonly tx: Transaction,
    private readonly t: number,
    private readonly file: X12File,
    private readonly inputs: ExplainInputs & { batch: Batch },
    private readonly findings: RemitFinding[],
    private readonly tally: Tally,
    private readonly sink: ClaimSink,
  ) {}

  async run(): Promise<RemitTransaction> {
    for (const seg of this.tx.each()) {
      if (!this.c) {
        if (seg.id !== 'CLP' && seg.id !== 'PLB' && seg.id !== 'SE') {
          this.header.push(seg);
          continue;
        }
        await this.begin();
      }
      await this.segment(seg);
    }
    if (!this.c) await this.begin();
    await this.finishClaim();
    return this.end();
  }

  private async begin(): Promise<void> {
    const h = headerOf(this.header, this.tx, this.t, this.file, this.inputs, this.findings);
    Object.assign(this, { c: h.c, out: h.out, bpr: h.bpr, amount: h.amount });
    const signed = toCents(h.out.payment.credit_debit === 'D' ? Dec.ZERO.sub(h.amount) : h.amount).toFixed(2);
    const first = this.inputs.batch.duplicateOf(h.out.payment.trace_number, h.out.payment.originating_company_id, signed, this.t);
    if (first) {
      this.duplicate = true;
      h.out.duplicate_of = first;
      const where = first.file === this.inputs.batch.file ? `transaction ${first.transaction + 1}` : `transaction ${first.transaction + 1} of ${first.file ?? 'an earlier file'}`;
      if (h.bpr ?? this.header[0]) finding(h.c, 'duplicate_remittance', 'warning', `the same remittance (trace number, payer and payment) as ${where}: left out of the totals, the worklist and reversal pairing; post it once`, (h.bpr ?? this.header[0])!);
    }
    await this.sink.transaction?.(h.out, 'begin');
  }

  private async segment(seg: Segment): Promise<void> {
    const c = this.c!;
    try {
      if (seg.id === 'CLP') {
        await this.finishClaim();
        this.skipClaim = false;
        this.reading = { c, claim: readClp(seg), line: null, dateOf: this.dateOf, ci: this.claims };
      } else if (seg.id === 'PLB') {
        await this.finishClaim();
        this.readPlb(seg);
      } else if (this.reading && !this.skipClaim) {
        ownValue(CLAIM_SEGMENTS, seg.id)?.(this.reading, seg);
      }
    } catch (e) {
      if (!(e instanceof Unparseable)) throw e;
      finding(c, 'unparseable_segment', 'error', `segment ${seg.index} (${seg.id.slice(0, 3)}) could not be read (${e.message}): skipped${seg.id === 'CLP' ? ' with its claim' : seg.id === 'SVC' ? ' with its line' : ''}`, seg, this.reading || seg.id === 'CLP' ? this.claims : null);
      if (seg.id === 'CLP') {
        this.reading = null;
        this.skipClaim = true;
      }
      if (seg.id === 'SVC' && this.reading) this.reading.line = null;
    }
  }

  private readPlb(seg: Segment): void {
    const c = this.c!;
    for (let k = 2; k + 1 < seg.el.length; k += 2) {
      if (!num(seg.el[k])) continue;
      const comp = components(c, seg.el[k]!, seg);
      const reason = num(comp[0]).toUpperCase();
      const amount = money(seg.el[k + 1], 'PLB amount');
      this.plbAmounts.push(amount);
      this.plbRefs.push({ i: this.plbs.length, ref: opt(comp[1]) });
      this.plbs.push({ provider_id: opt(seg.el[0]), fiscal_period_date: toIso(seg.el[1]), reason, description: ownValue(PLB_REASONS, reason) ?? null, reference: opt(comp[1]), claim: null, amount: toCents(amount) });
    }
  }

  /** The claim just read: explained, linked, judged, paired, tallied, then written (or held behind a reversal). */
  private async finishClaim(): Promise<void> {
    const r = this.reading;
    if (!r || !this.out) return;
    this.reading = null;
    const ci = this.claims++;
    const { claim, pending } = explainClaim(r.c, r.claim, ci);
    for (const ref of [claim.patient_control_number, claim.payer_claim_control_number]) if (ref && !this.byRef.has(ref)) this.byRef.set(ref, ci);
    this.claimsPaid = this.claimsPaid.add(r.claim.paid);
    this.interest = this.interest.add(claim.interest ?? 0);
    // Linked first: the denial rules read the line's NCCI edit and MUE, and its pricing.
    if (this.inputs.link) await this.inputs.link(this.out, claim);
    judgeClaim(r.c.judge, claim, claimPayer(r.c.payer, r.claim.filing, this.inputs.payers), pending);
    if (!this.duplicate) {
      this.inputs.batch.pair(claim, pairingOf(claim, r.claim, this.inputs.batch.file, this.t, ci, this.tx.interchange));
      this.tally.claim(this.out, claim);
    }
    this.held.push({ claim, ci });
    await this.release(false);
  }

  /** Writes the held claims from the first, up to one that still waits for its correction (all of them at the end). */
  private async release(all: boolean): Promise<void> {
    const batch = this.inputs.batch;
    while (this.held.length && (all || this.held.length > REVERSAL_HOLD || !batch.isWaiting(this.held[0]!.claim))) {
      const { claim, ci } = this.held.shift()!;
      batch.written(claim);
      this.inputs.redact?.claim(claim);
      await this.sink.claim(this.out!, claim, ci);
    }
  }

  private async end(): Promise<RemitTransaction> {
    await this.release(true);
    const o = this.out!;
    for (const r of this.plbRefs) {
      const i = r.ref ? this.byRef.get(r.ref) : undefined;
      if (i !== undefined) this.plbs[r.i]!.claim = i;
    }
    o.provider_adjustments = this.plbs;
    o.reconciliation = reconcile({ handling: o.payment.handling?.code ?? null, method: o.payment.method, creditDebit: o.payment.credit_debit, amount: this.amount, claimsPaid: this.claimsPaid, interest: this.interest, plb: this.plbs, plbAmounts: this.plbAmounts });
    if (this.bpr && !o.reconciliation.balanced) {
      const r = o.reconciliation;
      finding(this.c!, 'transaction_unbalanced', 'warning', `BPR02 ${r.payment.toFixed(2)} (signed by BPR03) is not the claims' payments less provider adjustments (${r.expected_payment.toFixed(2)})`, this.bpr);
    }
    this.inputs.redact?.transaction(o);
    await this.sink.transaction?.(o, 'end');
    return o;
  }
}

/** A claim as reversal pairing knows it. */
function pairingOf(claim: RemitClaim, acc: ClaimAcc, file: string | null, t: number, ci: number, interchange: number): PairingClaim {
  const dates = claim.lines.map((l) => l.service_from).filter((d): d is string => d !== null).sort();
  return {
    ref: { file, transaction: t, claim: ci, patient_control_number: claim.patient_control_number, payer_claim_control_number: claim.payer_claim_control_number },
    status: claim.status.code,
    paid: claim.paid,
    icn: claim.payer_claim_control_number,
    pcn: claim.patient_control_number,
    originalRef: claim.original_reference,
    firstDos: dates[0] ?? claim.statement_from,
    loc: { interchange, segment_index: acc.seg.index },
  };
}

const READER_SEVERITY: Record<string, RemitFinding['severity']> = { other_transaction: 'info', segment_outside_transaction: 'warning' };

/** Keeps each claim in its transaction: the whole answer (the route, `--format json`). */
const KEEP: ClaimSink = {
  async claim(tx, claim) {
    tx.claims.push(claim);
  },
};

/** Each reversal no correction paired in the call, as a finding at its CLP. */
export function unpairedReversalFindings(batch: Batch): RemitFinding[] {
  return batch.unpaired().map(({ entry, key }) => ({
    code: 'reversal_unpaired' as const,
    severity: 'warning' as const,
    message: `claim ${entry.reversal.claim + 1} of transaction ${entry.reversal.transaction + 1}${entry.reversal.file ? ` in ${entry.reversal.file}` : ''} reverses ${dollars(-entry.reversed_paid)} (CLP02 22) and no correction in this call pairs with it (by REF*F8, CLP07, or patient control number and date): the takeback stands alone until its correction arrives`,
    loc: { interchange: key.loc.interchange, transaction: entry.reversal.transaction, claim: entry.reversal.claim, line: null, segment_index: key.loc.segment_index, segment_id: 'CLP' },
  }));
}

/**
 * The explanation of a read 835 file (without the reliability object, which the route adds).
 * Each claim goes to `sink` as soon as it is explained (by default kept in its transaction); the
 * summary and worklist are tallied as they pass, so a sink that drops claims holds none of them.
 * With `inputs.batch` (several files in one call) the caller reports the reversals left unpaired
 * once every file is read; without it they are this answer's findings.
 */
export async function explainRemittance(file: X12File, inputs: ExplainInputs, sink: ClaimSink = KEEP): Promise<Explained> {
  const findings: RemitFinding[] = file.findings.map((f) => ({
    code: f.code,
    severity: ownValue(READER_SEVERITY, f.code) ?? 'warning',
    message: f.message,
    loc: { interchange: f.interchange, transaction: f.transaction, claim: null, line: null, segment_index: f.segment_index, segment_id: f.segment_id },
  }));
  const own = !inputs.batch;
  const batch = inputs.batch ?? new Batch();
  const from = batch.reversals.length;
  const tally = new Tally();
  const transactions: RemitTransaction[] = [];
  for (const [t, tx] of file.transactions.entries()) transactions.push(await new TransactionReader(tx, t, file, { ...inputs, batch }, findings, tally, sink).run());
  let acknowledgments = explainAcknowledgments(file.acknowledgments, file.separators, { payers: inputs.payers, asOf: inputs.asOf, match: (name, id) => identifyPayer(inputs.payers, inputs.mac, { name, id, ids: [id] }).row, findings });
  tally.acknowledgments(acknowledgments);
  if (own) findings.push(...unpairedReversalFindings(batch));
  findings.sort((a, b) => a.loc.segment_index - b.loc.segment_index);
  const redact = inputs.redact;
  if (redact) acknowledgments = acknowledgments.map((a) => redact.acknowledgment(a));
  const reversals = batch.reversals.slice(from).map((r) => (redact ? redact.reversal(r) : r));
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
      duplicates: transactions.filter((t) => t.duplicate_of).length,
    },
    transactions,
    acknowledgments,
    findings,
    worklist: tally.worklist(),
    reversals,
    payersMatched: transactions.some((t) => t.payer.slug !== null) || acknowledgments.some((a) => a.payer?.slug),
  };
}
