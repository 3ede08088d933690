import type { z } from 'zod';
import type { RemitExplanationSchema } from '../server/remittances/schemas.js';
import type { Trace } from '../server/trace.js';
import { counted, dollars } from '../lib/money_text.js';
import { safeLines } from '../lib/safe_text.js';

/**
 * `rcm remit explain` as a person reads it (text and markdown): one payment at a time, a header
 * per claim naming the claim and the patient, a line per adjustment with its meaning and next
 * step, the provider adjustments in words, then the worklist and the totals. Every value that
 * came from the 835 is printed through `safeLines` (terminal-safe); a value the file does not
 * give is said in words ("date not given"), never as `?`.
 */

export type Explanation = Omit<z.output<typeof RemitExplanationSchema>, 'reliability'> & { reliability: ReturnType<Trace['reliability']> };
type Tx = Explanation['transactions'][number];
type Claim = Tx['claims'][number];
type Line = Claim['lines'][number];
type Adjustment = Claim['adjustments'][number];

/** A value the file gave, or what is missing in words ("date not given"). */
const given = (v: string | null | undefined, missing: string): string => (v === null || v === undefined || v === '' ? missing : v);

/** A code's text as a person reads it in a list: without X12's usage note (the JSON keeps it whole). */
const meaning = (d: string | null) => (d === null ? 'not in the loaded code list' : d.split(' Usage:')[0]!);
const words = (s: string) => s.replace(/_/g, ' ');

const DEADLINE_WORDS = { appeal_by: ['appeal', 'appeal window'], reopen_by: ['reopen', 'reopening window'], resubmit_by: ['resubmit', 'filing limit'] } as const;

/**
 * A deadline as a person says it: "appeal by 2026-04-06 (117 days)", "appeal window closed
 * 2021-08-03 (1,951 days ago)"; the same for reopen and resubmit.
 */
export function deadlineWords(d: { kind: keyof typeof DEADLINE_WORDS; date: string | null; days_remaining: number | null }): string | null {
  if (!d.date) return null;
  const [verb, window] = DEADLINE_WORDS[d.kind];
  if (d.days_remaining !== null && d.days_remaining < 0) return `${window} ${d.kind === 'resubmit_by' ? 'passed' : 'closed'} ${d.date} (${counted(-d.days_remaining, 'day')} ago)`;
  return `${verb} by ${d.date}${d.days_remaining === null ? '' : ` (${d.days_remaining === 0 ? 'today' : counted(d.days_remaining, 'day')})`}`;
}

const WHOSE: Record<string, string> = { provider: "the amount is the provider's", patient: "the amount is the patient's", other_payer: "the amount is the other payer's", payer: 'the amount stays with the payer', undetermined: 'whose the amount is is not decided' };

/** What to do, by when: the remedy (its deadline in the same words when it has one) and whose the amount is. */
function nextStep(a: { remedy: string; responsibility: string; deadline: Parameters<typeof deadlineWords>[0] | null; other_payer?: { name: string | null; id: string | null } | null }): string {
  if (a.remedy === 'no_action') return 'no action';
  const other = a.other_payer?.name || a.other_payer?.id ? ` (${a.other_payer.name ?? a.other_payer.id})` : '';
  const when = a.deadline ? deadlineWords(a.deadline) : null;
  // "appeal by ...", "reopen by ...": the remedy is the deadline's verb; else "correct and resubmit, resubmit by ...".
  const step = when && a.remedy === DEADLINE_WORDS[a.deadline!.kind][0] ? when : `${words(a.remedy)}${other}${when ? `, ${when}` : ''}`;
  return `${step}; ${WHOSE[a.responsibility] ?? a.responsibility}`;
}

/** The patient NM1*QC names ("LAST, FIRST MIDDLE"), null when the claim has none. */
const patientName = (c: Claim): string | null => c.patient?.name ?? null;

/** A claim's header: its patient control number, the payer's claim number, the patient, its status and amounts. */
export function claimHeader(c: Claim): string {
  const icn = c.payer_claim_control_number ? `payer claim ${c.payer_claim_control_number}` : 'payer claim number not given';
  return `Claim ${given(c.patient_control_number, 'number not given')} (${icn}), patient ${given(patientName(c), 'not named')}: ${c.status.meaning}; charged ${dollars(c.charged)}, paid ${dollars(c.paid)}, patient owes ${dollars(c.patient_responsibility)}${pairWords(c)}`;
}

const claimName = (r: NonNullable<Claim['reversal_of']>) => `${r.payer_claim_control_number ? `payer claim ${r.payer_claim_control_number}` : `claim ${r.patient_control_number}`}${r.file ? ` in ${r.file}` : ''}`;

/** A reversal and its correction, each naming the other; the correction its net change. */
function pairWords(c: Claim): string {
  if (c.reversal_of) return `; corrects the reversal of ${claimName(c.reversal_of)}: net ${c.net_paid_change !== null && c.net_paid_change > 0 ? '+' : ''}${dollars(c.net_paid_change ?? 0)}`;
  if (c.corrected_by) return `; corrected by ${claimName(c.corrected_by)}`;
  return '';
}

/** A payment's heading: who paid whom how much, how and when, and its trace; a notification says it moves no money. */
export function paymentHeading(t: Tx): string {
  const payer = `${given(t.payer.name, 'payer not named')}${t.payer.slug ? ` (${t.payer.slug})` : ''}`;
  const payee = given(t.payee.name, 'payee not named');
  const when = t.payment.date ? `on ${t.payment.date}` : 'date not given';
  const trace = `trace ${given(t.payment.trace_number, 'not given')}`;
  if (t.payment.method === 'NON' || t.payment.amount === 0) return `${payer} to ${payee}: no payment (notification only), ${when}, ${trace}`;
  const how = t.payment.method ? `by ${t.payment.method}` : 'method not given';
  // BPR03 D: a debit, money the payer takes back.
  const moved = t.payment.credit_debit === 'D' ? `took back ${dollars(t.payment.amount)} from ${payee}` : `paid ${payee} ${dollars(t.payment.amount)}`;
  return `${payer} ${moved} ${how} ${when}, ${trace}`;
}

/**
 * A provider adjustment (PLB) in words. X12 835 TR3 (005010X221A1) PLB04: a positive amount
 * decreases the payment (withheld from the deposit), a negative one increases it (added to it).
 */
export function providerAdjustmentWords(p: Tx['provider_adjustments'][number]): string {
  const effect = p.amount > 0 ? 'withheld from the deposit' : p.amount < 0 ? 'added to the deposit' : 'no change to the deposit';
  return `provider adjustment ${p.reason} (${given(p.description, 'reason not described')}): ${dollars(Math.abs(p.amount))} ${effect}${p.reference ? `, reference ${p.reference}` : ''}`;
}

const codeOf = (l: Line) => `${given(l.code, 'code not given')}${l.modifiers.length ? `-${l.modifiers.join('-')}` : ''}`;
const adjustmentWords = (a: Adjustment) => `${a.group}-${a.reason} ${dollars(a.amount)}: ${meaning(a.description)}${a.deactivated ? ' [deactivated]' : ''} -> ${nextStep(a)}`;

/** What a line's links say (NCCI edit, MUE, coverage, fee schedule amount), a sentence each. */
function linkWords(l: Line): string[] {
  const out: string[] = [];
  if (l.ncci) out.push(`NCCI: ${l.ncci.explanation}`);
  if (l.mue) out.push(`MUE ${l.mue.mue_value ?? 'none'} for ${l.mue.code}${l.mue.mai_label ? ` (${l.mue.mai_label})` : ''}${l.mue.exceeded ? `: ${l.units} billed, over it` : ''}`);
  if (l.coverage) out.push(`Coverage: ${l.coverage.explanation}`);
  const p = l.pricing;
  if (p && p.status !== 'not_priced') {
    const schedule = p.location_source === 'ccn' && p.locality === null ? 'Medicare OPPS' : 'Medicare fee schedule';
    const by = p.difference ? ` by ${dollars(Math.abs(p.difference))}` : '';
    out.push(`${schedule} ${dollars(p.expected_allowed ?? 0)}${p.locality ? ` in locality ${p.locality}` : ''}: ${words(p.status)}${p.status === 'as_expected' ? '' : by}${p.remedy ? ` -> ${nextStep(p.remedy)}` : ''}`);
  }
  return out;
}

/** A markdown table cell: a pipe or a line break from the file cannot end the cell or the row. */
const cell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');

/** A claim as a markdown table of its lines, then its adjustments, remarks and links as bullets. */
export function claimMarkdown(c: Claim): string[] {
  const out = ['', `#### ${claimHeader(c)}`];
  if (c.lines.length) {
    out.push('', '| line | code and modifiers | date of service | units | charged | allowed | paid | adjustments |', '|---:|---|---|---:|---:|---:|---:|---|');
    c.lines.forEach((l, i) => {
      const dates = l.service_from && l.service_to && l.service_to !== l.service_from ? `${l.service_from} to ${l.service_to}` : given(l.service_from, 'not given');
      const adj = l.adjustments.map((a) => `${a.group}-${a.reason} ${dollars(a.amount)}`).join(', ') || 'none';
      out.push(`| ${i + 1} | ${cell(codeOf(l))} | ${dates} | ${l.units} | ${dollars(l.charged)} | ${dollars(l.allowed)} | ${dollars(l.paid)} | ${cell(adj)} |`);
    });
  }
  const bullets: string[] = [];
  for (const a of c.adjustments) bullets.push(`claim ${adjustmentWords(a)}`);
  for (const r of c.remarks) bullets.push(`claim remark ${r.code}: ${meaning(r.description)}`);
  c.lines.forEach((l, i) => {
    for (const a of l.adjustments) bullets.push(`line ${i + 1} ${adjustmentWords(a)}`);
    for (const r of l.remarks) bullets.push(`line ${i + 1} remark ${r.code}: ${meaning(r.description)}`);
    for (const s of linkWords(l)) bullets.push(`line ${i + 1} ${s}`);
  });
  if (bullets.length) out.push('', ...bullets.map((b) => `- ${b}`));
  return out;
}

/** A claim as indented text: its header, each claim adjustment and remark, each line with its adjustments, remarks and links. */
function claimText(c: Claim): string[] {
  const out = [claimHeader(c)];
  for (const a of c.adjustments) out.push(`  ${adjustmentWords(a)}`);
  for (const r of c.remarks) out.push(`  remark ${r.code}: ${meaning(r.description)}`);
  for (const l of c.lines) {
    const dated = l.service_from ? `on ${l.service_from}` : 'date not given';
    out.push(`  ${codeOf(l)} x${l.units} ${dated}: charged ${dollars(l.charged)}, allowed ${dollars(l.allowed)}, paid ${dollars(l.paid)}`);
    for (const a of l.adjustments) out.push(`    ${adjustmentWords(a)}`);
    for (const r of l.remarks) out.push(`    remark ${r.code}: ${meaning(r.description)}`);
    for (const s of linkWords(l)) out.push(`    ${s}`);
  }
  return out;
}

/** The acknowledgments (999, 277CA) as lines: each transaction or claim accepted or rejected, every error in words. */
function acknowledgmentLines(e: Explanation, h: (s: string) => string, li: (depth: number, s: string) => string): string[] {
  const out: string[] = [];
  for (const a of e.acknowledgments) {
    const dated = a.date ? `of ${a.date}` : '(date not given)';
    if (a.kind === '999') {
      const g = a.acknowledged_group;
      const s = a.group_status;
      const counts = s ? `, ${s.transactions_accepted ?? 'a number not given'} of ${counted(s.transactions_included ?? 0, 'transaction')} accepted` : '';
      out.push('', h(`999 ${dated} for group ${given(g?.control_number, 'number not given')} (${given(g?.version, 'version not given')}): ${s ? given(s.meaning, `status ${s.code}`) : 'no AK9'}${counts}`));
      for (const t of a.transactions) {
        out.push(li(0, `${t.set_id} ${t.control_number}: ${given(t.status?.meaning, 'status not given')}${t.claims.length ? ` (claims ${t.claims.join(', ')})` : ''}${t.remedy ? ` -> ${nextStep(t.remedy)}` : ''}`));
        for (const x of t.segment_errors) {
          out.push(li(1, `segment ${x.segment_id} at ${x.position === null ? 'a position not given' : `position ${x.position}`}: ${x.meaning ?? given(x.code, 'error not described')}`));
          for (const el of x.element_errors) {
            const at = el.position ? ` ${x.segment_id}${el.position.split(/[^0-9]/)[0]!.padStart(2, '0')}` : ` of ${x.segment_id}`;
            out.push(li(2, `element${at} (${given(el.reference, 'reference not given')}): ${el.meaning ?? given(el.code, 'error not described')}`));
          }
        }
      }
    } else {
      out.push('', h(`277CA ${dated} from ${given(a.payer?.name, 'payer not named')}${a.payer?.slug ? ` (${a.payer.slug})` : ''}`));
      for (const c of a.claims) {
        const st = c.statuses.map((x) => `${x.category}${x.status_code ? `:${x.status_code}` : ''} ${x.category_meaning ?? ''}`.trim()).join('; ');
        out.push(li(0, `Claim ${c.patient_control_number}${c.charged !== null ? ` (${dollars(c.charged)})` : ''}: ${c.accepted === false ? 'rejected' : c.accepted ? 'accepted' : 'undecided'}: ${st}${c.remedy ? ` -> ${nextStep(c.remedy)}` : ''}`));
      }
    }
  }
  return out;
}

/** One worklist row in words: "medicare_ffs CO-97 reopen: 1 item, $100.00, earliest deadline 2027-08-03". */
export function worklistWords(w: Explanation['worklist'][number]): string {
  const what = w.source === 'underpayment' ? w.reason : `${w.group}-${w.reason}`;
  return `${w.source === '835' ? '' : `${w.source} `}${given(w.payer, 'payer not named')} ${what} ${words(w.remedy)}: ${counted(w.count, 'item')}, ${dollars(w.amount)}${w.earliest_deadline ? `, earliest deadline ${w.earliest_deadline}` : ''}`;
}

/**
 * An explained remittance as a person reads one, written as it is explained: payment by payment,
 * claim by claim; then the provider adjustments, acknowledgments, findings, worklist and totals.
 * One claim is held at a time.
 */
export class RemitText {
  private readonly seen = new Set<Tx>();
  private last: Tx | null = null;
  private started = false;

  /** `file`: the heading of this file's part when several are explained (null for one file: its name is on the command line). */
  constructor(
    file: string | null,
    private readonly markdown: boolean,
    private readonly write: (s: string) => void,
  ) {
    if (file !== null) this.put([this.markdown ? `## ${file}` : `== ${file} ==`]);
  }

  private h(s: string): string {
    return this.markdown ? `### ${s}` : s;
  }

  private li(depth: number, s: string): string {
    return `${'  '.repeat(depth)}${this.markdown ? '- ' : ''}${s}`;
  }

  /** Writes whole lines, each terminal-safe: names, numbers and file names come from the 835. */
  private put(lines: string[]): void {
    if (!lines.length) return;
    this.write(safeLines(lines));
    this.started = true;
  }

  /** A transaction's header, and the provider adjustments of the one before it (known once its claims are read). */
  private begin(t: Tx): void {
    if (this.last) this.plb(this.last);
    this.last = t;
    this.seen.add(t);
    this.put([...(this.started ? [''] : []), this.h(paymentHeading(t))]);
  }

  /** The provider adjustments, then the payment reconciled with its claims (both known at the transaction's end). */
  private plb(t: Tx): void {
    this.put([...(this.markdown ? [''] : []), ...t.provider_adjustments.map((p) => this.li(0, providerAdjustmentWords(p))), this.li(0, `${t.reconciliation.balanced ? 'balanced' : 'not balanced'}: ${t.reconciliation.explanation}`)]);
  }

  claim(t: Tx, c: Claim): void {
    if (t !== this.last) this.begin(t);
    this.put(this.markdown ? claimMarkdown(c) : claimText(c));
  }

  /** The rest, once the file is explained: transactions without claims, acknowledgments, findings, worklist, warnings and totals. */
  finish(e: Explanation): void {
    if (this.last) this.plb(this.last);
    for (const t of e.transactions) {
      if (this.seen.has(t)) continue;
      this.last = null;
      this.begin(t);
      this.plb(t);
    }
    const h = (s: string) => this.h(s);
    const li = (depth: number, s: string) => this.li(depth, s);
    const out = acknowledgmentLines(e, h, li);
    if (e.findings.length) {
      out.push('', h(`Findings (${e.findings.length})`));
      for (const f of e.findings) out.push(li(0, `${f.severity} ${f.code} at segment ${f.loc.segment_index} (${f.loc.segment_id}): ${f.message}`));
    }
    if (e.worklist.length) {
      out.push('', h(`Worklist: ${counted(e.worklist.length, 'item')}, earliest deadline first`));
      for (const w of e.worklist) out.push(li(0, worklistWords(w)));
    }
    if (this.markdown && e.reliability.warnings.length) out.push('');
    for (const w of e.reliability.warnings) out.push(li(0, `warning: ${w}`));
    if (this.markdown) out.push('');
    out.push(`Total: ${counted(e.summary.claims, 'claim')}, ${counted(e.summary.service_lines, 'line')}, paid ${dollars(e.summary.totals.paid)} of ${dollars(e.summary.totals.charged)} charged`);
    this.put(out);
  }
}
