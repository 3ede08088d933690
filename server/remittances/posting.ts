import { csvRows } from '../../lib/safe_text.js';
import type { ClaimSink } from './explain.js';
import type { RemitAdjustment, RemitClaim, RemitLine, RemitTransaction, WorklistItem } from './schemas.js';

/**
 * The posting file: an explanation as the rows a practice-management system imports, one per
 * claim (`claim`), service line (`line`), CAS adjustment at claim or line level (`adjustment`) and
 * PLB entry (`provider_adjustment`), with the 835's own identifiers on each. Money is a plain
 * decimal with `-` for negatives, lists are joined with `|`, a column a level does not use is
 * empty; RFC 4180, one header, text cells spreadsheet-safe (`lib/safe_text.ts`). Written claim by
 * claim as the explanation streams, so it holds one claim at a time.
 */
export const POSTING_COLUMNS = [
  'level',
  'file',
  'trace_number',
  'payment_date',
  'payer_id',
  'payer_name',
  'payee_npi',
  'payee_tin',
  'patient_control_number',
  'payer_claim_control_number',
  'claim_status',
  'claim_frequency',
  'patient_name',
  'member_id',
  'line_number',
  'code',
  'submitted_code',
  'modifiers',
  'revenue_code',
  'date_of_service',
  'units',
  'submitted_units',
  'charged',
  'allowed',
  'paid',
  'patient_responsibility',
  'interest',
  'expected_allowed',
  'pricing_status',
  'group',
  'reason',
  'amount',
  'remarks',
  'remedy',
  'responsibility',
  'deadline_kind',
  'deadline_date',
  'reference',
  'reversal_of',
  'net_paid_change',
  'duplicate_of',
] as const;

type Column = (typeof POSTING_COLUMNS)[number];
type Row = Partial<Record<Column, string | number | null>>;

const money = (n: number | null | undefined) => (n === null || n === undefined ? null : n.toFixed(2));

/** The columns every row of a transaction carries. */
function txColumns(file: string | null, tx: RemitTransaction): Row {
  return {
    file,
    trace_number: tx.payment.trace_number,
    payment_date: tx.payment.date,
    // N1*PR04, else REF*2U (both in payer.id), else TRN03.
    payer_id: tx.payer.id ?? tx.payment.originating_company_id,
    payer_name: tx.payer.name,
    payee_npi: tx.payee.npi,
    payee_tin: tx.payee.tin,
    duplicate_of: tx.duplicate_of ? `${tx.duplicate_of.file ? `${tx.duplicate_of.file} ` : ''}transaction ${tx.duplicate_of.transaction + 1}` : null,
  };
}

function claimColumns(c: RemitClaim): Row {
  return {
    patient_control_number: c.patient_control_number,
    payer_claim_control_number: c.payer_claim_control_number,
    claim_status: c.status.code,
    claim_frequency: c.claim_frequency,
    patient_name: c.patient?.name ?? null,
    member_id: c.member_id,
  };
}

function lineColumns(l: RemitLine, i: number): Row {
  return {
    line_number: i + 1,
    code: l.code,
    submitted_code: l.original_code,
    modifiers: l.modifiers.join('|'),
    revenue_code: l.revenue_code,
    date_of_service: l.service_from,
    units: l.units,
    submitted_units: l.submitted_units,
  };
}

function adjustmentRow(a: RemitAdjustment, remarks: string[]): Row {
  return {
    level: 'adjustment',
    group: a.group,
    reason: a.reason,
    amount: money(a.amount),
    remarks: remarks.join('|'),
    remedy: a.remedy,
    responsibility: a.responsibility,
    deadline_kind: a.deadline?.kind ?? null,
    deadline_date: a.deadline?.date ?? null,
  };
}

/** A claim's rows: the claim, then each claim adjustment, then each line and its adjustments. */
export function claimRows(file: string | null, tx: RemitTransaction, c: RemitClaim): Row[] {
  const base = { ...txColumns(file, tx), ...claimColumns(c) };
  const claimRemarks = c.remarks.map((r) => r.code);
  const ref = (r: RemitClaim['reversal_of']) => (r ? (r.payer_claim_control_number ?? r.patient_control_number) : null);
  const rows: Row[] = [
    {
      ...base,
      level: 'claim',
      date_of_service: c.statement_from ?? c.lines.map((l) => l.service_from).find((d) => d !== null) ?? null,
      charged: money(c.charged),
      paid: money(c.paid),
      patient_responsibility: money(c.patient_responsibility),
      interest: money(c.interest),
      remarks: claimRemarks.join('|'),
      reference: c.original_reference,
      reversal_of: ref(c.reversal_of),
      net_paid_change: money(c.net_paid_change),
    },
  ];
  for (const a of c.adjustments) rows.push({ ...base, ...adjustmentRow(a, claimRemarks) });
  c.lines.forEach((l, i) => {
    const line = { ...base, ...lineColumns(l, i) };
    const remarks = (l.remarks.length ? l.remarks : c.remarks).map((r) => r.code);
    rows.push({ ...line, level: 'line', charged: money(l.charged), allowed: money(l.allowed), paid: money(l.paid), expected_allowed: money(l.pricing?.expected_allowed), pricing_status: l.pricing?.status ?? null, remarks: l.remarks.map((r) => r.code).join('|'), reference: l.control_number });
    for (const a of l.adjustments) rows.push({ ...line, ...adjustmentRow(a, remarks) });
  });
  return rows;
}

/** A transaction's provider adjustments (PLB): positive withheld from the payment, negative added. */
export function providerAdjustmentRows(file: string | null, tx: RemitTransaction): Row[] {
  const base = txColumns(file, tx);
  // PLB03-2 (often a claim number) is the reference; the claims themselves were written before.
  return tx.provider_adjustments.map((p) => ({ ...base, level: 'provider_adjustment', reason: p.reason, amount: money(p.amount), reference: p.reference, date_of_service: p.fiscal_period_date }));
}

const csv = (rows: Row[]) => csvRows(rows.map((r) => POSTING_COLUMNS.map((k) => r[k] ?? null)));

/** The posting file's header line. */
export const POSTING_HEADER = csvRows([POSTING_COLUMNS]);

/** Text gathered before it is handed on, as the JSON writer does. */
const CHUNK = 256 * 1024;

/** Writes the posting file as the explanation streams: claims as they come, a transaction's PLB rows at its end. */
export class PostingCsvWriter implements ClaimSink {
  private pending = '';

  constructor(
    private readonly out: (text: string) => Promise<void>,
    private readonly file: string | null = null,
    header = true,
  ) {
    if (header) this.pending = POSTING_HEADER;
  }

  private async put(s: string): Promise<void> {
    this.pending += s;
    if (this.pending.length >= CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    await this.out(text);
  }

  async claim(tx: RemitTransaction, claim: RemitClaim): Promise<void> {
    await this.put(csv(claimRows(this.file, tx, claim)));
  }

  async transaction(tx: RemitTransaction, phase: 'begin' | 'end'): Promise<void> {
    if (phase === 'end' && tx.provider_adjustments.length) await this.put(csv(providerAdjustmentRows(this.file, tx)));
  }
}

/** The worklist as CSV: what a denial team works first. */
export const WORKLIST_COLUMNS = ['file', 'source', 'payer', 'group', 'reason', 'remedy', 'count', 'amount', 'earliest_deadline'] as const;

export function worklistCsv(files: { file: string | null; worklist: WorklistItem[] }[], header = true): string {
  const rows: (string | number | null)[][] = header ? [[...WORKLIST_COLUMNS]] : [];
  for (const { file, worklist } of files) for (const w of worklist) rows.push([file, w.source, w.payer, w.group, w.reason, w.remedy, w.count, w.amount.toFixed(2), w.earliest_deadline]);
  return csvRows(rows);
}
