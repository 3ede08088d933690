import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { z } from 'zod';
import { todayOf } from '../../datasets/_shared/dates.js';
import { writeJson } from '../../server/json_bytes.js';
import type { ClaimSink } from '../../server/remittances/explain.js';
import { explainFile } from '../../server/remittances/service.js';
import type { RemitExplanationSchema } from '../../server/remittances/schemas.js';
import { Trace } from '../../server/trace.js';
import { DomainError, NotFoundError } from '../../warehouse/errors.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import type { CliContext } from '../context.js';
import { csvRows, jsonSafe, safeLines, terminalSafe } from '../safe_text.js';

type Format = 'text' | 'json' | 'markdown' | 'csv';
type Explanation = Omit<z.output<typeof RemitExplanationSchema>, 'reliability'> & { reliability: ReturnType<Trace['reliability']> };

const money = (n: number) => `$${n.toFixed(2)}`;
/** A code's text as a person reads it in a list: without X12's usage note (the JSON keeps it whole). */
const meaning = (d: string | null) => (d === null ? 'not in the loaded code list' : d.split(' Usage:')[0]!);
const words = (s: string) => s.replace(/_/g, ' ');

const count = (n: number) => n.toLocaleString('en-US');
const DEADLINE_WORDS = { appeal_by: ['appeal', 'appeal window'], reopen_by: ['reopen', 'reopening window'], resubmit_by: ['resubmit', 'filing limit'] } as const;

/**
 * A deadline as a person says it: "appeal by 2026-04-06 (117 days)", "appeal window closed
 * 2021-08-03 (1,951 days ago)"; the same for reopen and resubmit.
 */
export function deadlineWords(d: { kind: keyof typeof DEADLINE_WORDS; date: string | null; days_remaining: number | null }): string | null {
  if (!d.date) return null;
  const [verb, window] = DEADLINE_WORDS[d.kind];
  if (d.days_remaining !== null && d.days_remaining < 0) return `${window} ${d.kind === 'resubmit_by' ? 'passed' : 'closed'} ${d.date} (${count(-d.days_remaining)} day${d.days_remaining === -1 ? '' : 's'} ago)`;
  return `${verb} by ${d.date}${d.days_remaining === null ? '' : ` (${d.days_remaining === 0 ? 'today' : `${count(d.days_remaining)} day${d.days_remaining === 1 ? '' : 's'}`})`}`;
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

type Tx = Explanation['transactions'][number];
type Claim = Tx['claims'][number];

/**
 * An explained remittance as a person reads one, written as it is explained: payment by payment,
 * claim by claim, a line per adjustment with its meaning and next step; then the provider
 * adjustments, acknowledgments, findings, worklist and totals. One claim is held at a time.
 */
class RemitText {
  private readonly seen = new Set<Tx>();
  private last: Tx | null = null;

  constructor(
    file: string,
    private readonly markdown: boolean,
    private readonly write: (s: string) => void,
  ) {
    this.put([this.h(2, file)]);
  }

  private h(level: number, s: string): string {
    return this.markdown ? `${'#'.repeat(level)} ${s}` : level === 2 ? `== ${s} ==` : s;
  }

  private li(depth: number, s: string): string {
    return `${'  '.repeat(depth)}${this.markdown ? '- ' : ''}${s}`;
  }

  /** Writes whole lines, each terminal-safe: names, numbers and file names come from the 835. */
  private put(lines: string[]): void {
    if (lines.length) this.write(safeLines(lines));
  }

  /** A transaction's header, and the provider adjustments of the one before it (known once its claims are read). */
  private begin(t: Tx): void {
    if (this.last) this.plb(this.last);
    this.last = t;
    this.seen.add(t);
    this.put(['', this.h(3, `${t.payer.name ?? 'payer ?'}${t.payer.slug ? ` (${t.payer.slug})` : ''} paid ${t.payee.name ?? 'payee ?'} ${money(t.payment.amount)} by ${t.payment.method ?? '?'} on ${t.payment.date ?? '?'}, trace ${t.payment.trace_number ?? '?'}`)]);
  }

  private plb(t: Tx): void {
    this.put(t.provider_adjustments.map((p) => this.li(0, `provider adjustment ${p.reason} ${money(p.amount)}: ${p.description ?? '?'}${p.reference ? ` (${p.reference})` : ''}`)));
  }

  claim(t: Tx, c: Claim): void {
    if (t !== this.last) this.begin(t);
    const li = (depth: number, s: string) => this.li(depth, s);
    const out = [li(0, `Claim ${c.patient_control_number} (${c.status.meaning}): charged ${money(c.charged)}, paid ${money(c.paid)}, patient ${money(c.patient_responsibility)}`)];
    const adj = (depth: number, a: Claim['adjustments'][number]) => li(depth, `${a.group}-${a.reason} ${money(a.amount)}: ${meaning(a.description)}${a.deactivated ? ' [deactivated]' : ''} -> ${nextStep(a)}`);
    for (const a of c.adjustments) out.push(adj(1, a));
    for (const r of c.remarks) out.push(li(1, `remark ${r.code}: ${meaning(r.description)}`));
    for (const l of c.lines) {
      out.push(li(1, `${l.code ?? '?'}${l.modifiers.length ? `-${l.modifiers.join('-')}` : ''} x${l.units} on ${l.service_from ?? '?'}: charged ${money(l.charged)}, allowed ${money(l.allowed)}, paid ${money(l.paid)}`));
      for (const a of l.adjustments) out.push(adj(2, a));
      for (const r of l.remarks) out.push(li(2, `remark ${r.code}: ${meaning(r.description)}`));
      if (l.ncci) out.push(li(2, `NCCI: ${l.ncci.explanation}`));
      if (l.mue) out.push(li(2, `MUE ${l.mue.mue_value ?? 'none'} for ${l.mue.code}${l.mue.mai_label ? ` (${l.mue.mai_label})` : ''}${l.mue.exceeded ? `: ${l.units} billed, over it` : ''}`));
      if (l.coverage) out.push(li(2, `Coverage: ${l.coverage.explanation}`));
      const p = l.pricing;
      if (p && p.status !== 'not_priced') out.push(li(2, `${p.location_source === 'ccn' && p.locality === null ? 'Medicare OPPS' : 'Medicare fee schedule'} ${money(p.expected_allowed ?? 0)}${p.locality ? ` in locality ${p.locality}` : ''}: ${words(p.status)}${p.difference ? ` (${p.difference > 0 ? '+' : ''}${p.difference.toFixed(2)})` : ''}${p.remedy ? ` -> ${nextStep(p.remedy)}` : ''}`));
    }
    this.put(out);
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
    const h = (level: number, s: string) => this.h(level, s);
    const li = (depth: number, s: string) => this.li(depth, s);
    const out: string[] = [];
    for (const a of e.acknowledgments) {
      if (a.kind === '999') {
        const g = a.acknowledged_group;
        out.push('', h(3, `999 of ${a.date ?? '?'} for group ${g?.control_number ?? '?'} (${g?.version ?? '?'}): ${a.group_status?.meaning ?? 'no AK9'}${a.group_status ? `, ${a.group_status.transactions_accepted ?? '?'} of ${a.group_status.transactions_included ?? '?'} transactions accepted` : ''}`));
        for (const t of a.transactions) {
          out.push(li(0, `${t.set_id} ${t.control_number}: ${t.status?.meaning ?? '?'}${t.claims.length ? ` (claims ${t.claims.join(', ')})` : ''}${t.remedy ? ` -> ${nextStep(t.remedy)}` : ''}`));
          for (const x of t.segment_errors) {
            out.push(li(1, `segment ${x.segment_id} at position ${x.position ?? '?'}: ${x.meaning ?? x.code ?? '?'}`));
            for (const el of x.element_errors) out.push(li(2, `element ${x.segment_id}${(el.position ?? '?').split(/[^0-9]/)[0]!.padStart(2, '0')} (${el.reference ?? '?'}): ${el.meaning ?? el.code ?? '?'}`));
          }
        }
      } else {
        out.push('', h(3, `277CA of ${a.date ?? '?'} from ${a.payer?.name ?? 'payer ?'}${a.payer?.slug ? ` (${a.payer.slug})` : ''}`));
        for (const c of a.claims) {
          const st = c.statuses.map((x) => `${x.category}${x.status_code ? `:${x.status_code}` : ''} ${x.category_meaning ?? ''}`.trim()).join('; ');
          out.push(li(0, `Claim ${c.patient_control_number}${c.charged !== null ? ` (${money(c.charged)})` : ''}: ${c.accepted === false ? 'rejected' : c.accepted ? 'accepted' : 'undecided'}: ${st}${c.remedy ? ` -> ${nextStep(c.remedy)}` : ''}`));
        }
      }
    }
    if (e.findings.length) {
      out.push('', h(3, `Findings (${e.findings.length})`));
      for (const f of e.findings) out.push(li(0, `${f.severity} ${f.code} at segment ${f.loc.segment_index} (${f.loc.segment_id}): ${f.message}`));
    }
    if (e.worklist.length) {
      out.push('', h(3, 'Worklist (earliest deadline first)'));
      for (const w of e.worklist) out.push(li(0, `${w.source === '835' ? '' : `${w.source} `}${w.payer ?? '?'} ${w.source === 'underpayment' ? w.reason : `${w.group}-${w.reason}`} ${words(w.remedy)}: ${w.count} x, ${money(w.amount)}${w.earliest_deadline ? `, earliest ${w.earliest_deadline}` : ''}`));
    }
    for (const w of e.reliability.warnings) out.push(li(0, `warning: ${w}`));
    out.push(`Total: ${e.summary.claims} claims, ${e.summary.service_lines} lines, paid ${money(e.summary.totals.paid)} of ${money(e.summary.totals.charged)} charged`);
    this.put(out);
  }
}

/** The worklist of every file as CSV: what a denial team works first. */
export function remitCsv(files: { file: string; e: Explanation }[]): string {
  const rows = [['file', 'source', 'payer', 'group', 'reason', 'remedy', 'count', 'amount', 'earliest_deadline']];
  for (const { file, e } of files) for (const w of e.worklist) rows.push([file, w.source, w.payer ?? '', w.group, w.reason, w.remedy, String(w.count), w.amount.toFixed(2), w.earliest_deadline ?? '']);
  return csvRows(rows);
}

/**
 * `rcm remit explain FILE...`: each 835 explained against the current snapshot, as the route
 * explains it. Exit 1 naming the file (and the segment) for one that cannot be read at all.
 */
export async function explain(ctx: CliContext, files: string[], o: { format?: Format; asOf?: string; ccn?: string; locality?: string }): Promise<void> {
  const wh = ctx.wh();
  const manifest = await wh.current();
  if (!manifest) throw new NotFoundError('no snapshot is published yet: run `rcm seed` or `rcm ingest`');
  const snapshot = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1 });
  const format: Format = o.format ?? 'text';
  const asOf = o.asOf ?? todayOf(new Date());
  const text = format === 'text' || format === 'markdown';
  // json holds each answer whole (it is the answer); csv and text hold one claim at a time.
  const done: { file: string; e: Explanation }[] = [];
  try {
    for (const [i, path] of files.entries()) {
      const of = files.length > 1 ? ` (file ${i + 1}/${files.length})` : '';
      // A large file on a terminal: its claims as they are linked (text shows them itself).
      const name = terminalSafe(basename(path));
      const progress =
        ctx.io.isTTY && !text ? (n: number, total: number) => ctx.io.stderr(`\r\x1b[2Kexplaining ${name}${of}: ${n.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} claims`) : undefined;
      if (progress) ctx.io.stderr(`\r\x1b[2Kexplaining ${name}${of}`);
      const bytes = await readFile(resolve(path)).catch((e: Error) => {
        throw new DomainError('not_found', `${path}: ${e.message}`);
      });
      const trace = new Trace(snapshot, () => new Date());
      let writer: RemitText | null = null;
      const sink: ClaimSink | undefined =
        format === 'json'
          ? undefined
          : {
              async claim(tx, claim) {
                if (!text) return;
                writer ??= new RemitText(path, format === 'markdown', (s) => ctx.io.stdout(s));
                writer.claim(tx, claim);
              },
            };
      let out;
      try {
        out = await explainFile(snapshot, bytes, asOf, trace, { ccn: o.ccn, locality: o.locality }, { progress, sink });
      } catch (e) {
        // The reader's 422 names the segment; the file is named here (never its contents).
        if (e instanceof DomainError) throw new DomainError(e.code, `${path}: ${e.message}`, { issues: e.issues });
        throw e;
      }
      const e = { ...out, reliability: trace.reliability() };
      if (text) {
        (writer ?? new RemitText(path, format === 'markdown', (s) => ctx.io.stdout(s))).finish(e);
        if (i < files.length - 1) ctx.io.stdout('\n');
      } else done.push({ file: path, e });
    }
    if (ctx.io.isTTY && !text) ctx.io.stderr('\r\x1b[2K');
  } finally {
    snapshot.close();
  }
  if (format === 'json') {
    // Written in parts: a 25 MB 835 explains to about 1 GB of JSON, more than one string holds.
    writeJson(done.length === 1 ? done[0]!.e : done.map(({ file, e }) => ({ file, ...e })), (part) => ctx.io.stdout(jsonSafe(part)), done.length === 1 ? 4 : 5);
    return ctx.io.stdout('\n');
  }
  if (format === 'csv') return ctx.io.stdout(remitCsv(done));
}
