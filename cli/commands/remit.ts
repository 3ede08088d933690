import { basename } from 'node:path';
import { todayOf } from '../../datasets/_shared/dates.js';
import { REMIT_DATASETS } from '../../server/remittances/datasets.js';
import { DomainError } from '../../warehouse/errors.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import type { CliContext } from '../context.js';
import { naming, remitInputs } from '../remit_input.js';
import { RemitText } from '../remit_text.js';
import { jsonSafe, safeLines, terminalSafe } from '../../lib/safe_text.js';

type Format = 'text' | 'json' | 'markdown' | 'posting-csv' | 'worklist-csv' | 'csv';



/** The explanation code, loaded while the snapshot mounts (DuckDB attaches on its own threads). */
const explainer = () =>
  Promise.all([import('../../server/remittances/service.js'), import('../../server/trace.js'), import('../../server/remittances/batch.js'), import('../../server/remittances/redact.js'), import('../../server/remittances/x12.js'), import('../../server/remittances/explain.js')]);

/** The snapshot (only `REMIT_DATASETS`, or every dataset to check claims too) and the explanation code, loaded side by side; the snapshot closed if the code fails to load. */
async function mountAndLoad(ctx: CliContext, everything = false) {
  const wh = ctx.wh();
  const manifest = await ctx.currentManifest();
  const [mounted, code] = await Promise.allSettled([MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1, ...(everything ? {} : { datasets: REMIT_DATASETS }) }), explainer()]);
  if (code.status === 'rejected') {
    if (mounted.status === 'fulfilled') mounted.value.close();
    throw code.reason;
  }
  if (mounted.status === 'rejected') throw mounted.reason;
  const [{ explanationOf }, { Trace }, { Batch, rollUp }, { Redactor, REDACTED_WARNING }, { readX12 }, { unpairedReversalFindings }] = code.value;
  return { snapshot: mounted.value, explanationOf, Trace, Batch, rollUp, Redactor, REDACTED_WARNING, readX12, unpairedReversalFindings };
}

type Loaded = Awaited<ReturnType<typeof mountAndLoad>>;
type Explained = Awaited<ReturnType<Awaited<ReturnType<Loaded['explanationOf']>>['write']>>;

export interface ExplainOptions {
  format?: Format;
  asOf?: string;
  ccn?: string;
  locality?: string;
  redact?: boolean;
  /** 837 files (or folders) whose checked predictions the remitted claims are measured against. */
  claims?: string[];
}

/** One file's explanation prepared: read (a 422 naming the file and segment), checked, its trace warned of redaction. */
async function prepared(l: Loaded, path: string, bytes: Buffer, o: ExplainOptions & { asOf: string }, batch: { batch?: InstanceType<Loaded['Batch']>; redactor?: InstanceType<Loaded['Redactor']>; name?: string }, progress?: (n: number, total: number) => void) {
  const trace = new l.Trace(l.snapshot, () => new Date());
  if (batch.redactor) trace.warn(l.REDACTED_WARNING);
  const ex = await naming(path, (async () => l.explanationOf(l.snapshot, l.readX12(bytes), o.asOf, trace, { ccn: o.ccn, locality: o.locality }, { progress, ...batch }))());
  return { trace, ex };
}

/**
 * `rcm remit explain FILE|FOLDER...`: each 835 explained against the current snapshot, as the
 * route explains it, written as it is explained (one claim held at a time, but JSON's worklist
 * and summary come at the end). Several files are one call: a copy of a remittance and a reversal
 * are recognised across them, and JSON answers `{files, worklist, summary, reversals, findings}`.
 * A folder is its X12 files (others skipped, each named on stderr). Exit 1 naming the file for one
 * missing or no X12, and naming the segment for one that cannot be read.
 */
export async function explain(ctx: CliContext, args: string[], o: ExplainOptions): Promise<void> {
  // Every argument is read before anything is mounted: a mistyped path fails at once.
  const { files, skipped } = await remitInputs(args);
  for (const s of skipped) ctx.io.stderr(safeLines([`skipped ${s}: not an X12 file`]));
  if (o.claims) return explainAgainstClaims(ctx, files, o);
  const l = await mountAndLoad(ctx);
  const format: Format = o.format === 'csv' ? 'worklist-csv' : (o.format ?? 'text');
  const asOf = o.asOf ?? todayOf(new Date());
  const text = format === 'text' || format === 'markdown';
  const many = files.length > 1;
  // One call: copies and reversals across files; one redactor, so a token means one value throughout.
  const shared = { batch: many ? new l.Batch() : undefined, redactor: o.redact ? new l.Redactor() : undefined };
  const out = async (s: string) => ctx.io.stdout(format === 'json' ? jsonSafe(s) : s);
  const answers: Explained[] = [];
  try {
    if (format === 'json' && many) await out('{"files":[');
    for (const [i, { path, bytes }] of files.entries()) {
      if (shared.batch) shared.batch.file = path;
      const of = many ? ` (file ${i + 1}/${files.length})` : '';
      // A large file on a terminal: its claims as they are linked (text shows them itself).
      const name = terminalSafe(basename(path));
      const progress = ctx.io.isTTY && !text ? (n: number, total: number) => ctx.io.stderr(`\r\x1b[2Kexplaining ${name}${of}: ${n.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} claims`) : undefined;
      if (progress) ctx.io.stderr(`\r\x1b[2Kexplaining ${name}${of}`);
      // A CSV row names its file always; a JSON answer only in a batch (one file answers as the route does).
      const { trace, ex } = await prepared(l, path, bytes, { ...o, asOf }, { ...shared, name: many || format.endsWith('csv') ? path : undefined }, progress);
      if (text) {
        // Each file's part is headed by its name when several are explained.
        const writer = new RemitText(many ? path : null, format === 'markdown', (s) => ctx.io.stdout(s));
        const e = await ex.explainWith({ claim: async (tx, claim) => writer.claim(tx, claim) });
        writer.finish({ ...e, reliability: trace.reliability() });
        if (i < files.length - 1) ctx.io.stdout('\n');
        answers.push(e);
        continue;
      }
      if (format === 'json' && i > 0) await out(',');
      answers.push(await ex.write(out, { format, header: i === 0 }));
    }
    if (ctx.io.isTTY && !text) ctx.io.stderr('\r\x1b[2K');
  } finally {
    l.snapshot.close();
  }
  const unpaired = shared.batch ? l.unpairedReversalFindings(shared.batch) : [];
  if (format === 'json') {
    if (!many) return ctx.io.stdout('\n');
    const reversals = shared.batch!.reversals.map((r) => (shared.redactor ? shared.redactor.reversal(r) : r));
    const { worklist, summary } = l.rollUp(answers);
    return ctx.io.stdout(jsonSafe(`],"worklist":${JSON.stringify(worklist)},"summary":${JSON.stringify(summary)},"reversals":${JSON.stringify(reversals)},"findings":${JSON.stringify(unpaired)}}\n`));
  }
  if (text && unpaired.length) ctx.io.stdout(safeLines(['', ...unpaired.map((f) => `${f.severity} ${f.code}: ${f.message}`)]));
}

/** What the loop report reads of a checked claims file. */
type Loop = import('../../server/claims/loop.js').ClaimLoop;

/** The loop as a person reads it: the counts, each line whose outcome is not `none`, the checked claims no remittance answered. */
function loopText(loop: Loop, md: boolean): string[] {
  const p = loop.predictions;
  const out = [`${md ? '## ' : ''}Predictions against the remittance: ${p.confirmed} confirmed, ${p.missed} missed, ${p.false_alarm} false alarm${p.false_alarm === 1 ? '' : 's'}, ${p.none} none (${p.lines} lines, ${p.lines_not_linked} not linked to a checked line)`];
  for (const c of loop.claims) {
    if (!c.checked) out.push(`${md ? '- ' : '  '}claim ${c.patient_control_number}: no checked claim has this patient control number`);
    for (const l of c.lines) {
      if (l.outcome === 'none') continue;
      out.push(`${md ? '- ' : '  '}claim ${c.patient_control_number} ${l.code ?? 'line'}${l.checked_line !== null ? ` (837 line ${l.checked_line})` : ''}: ${l.outcome.replace('_', ' ')}; predicted ${l.predicted.join(', ') || 'nothing'}, denied ${l.denied.join(', ') || 'nothing'}`);
    }
  }
  if (loop.not_remitted.length) out.push(`${md ? '- ' : '  '}checked, not remitted: ${loop.not_remitted.join(', ')}`);
  return out;
}

/**
 * `rcm remit explain X.835 --claims X.837...`: the 837s checked as `rcm claim check` checks them, the
 * 835s explained, and the loop closed (`server/claims/loop.ts`): each remitted line marked
 * confirmed, missed, false alarm or none. Text and markdown print the explanation then the loop;
 * JSON answers `{files: [explanation...], loop}`.
 */
async function explainAgainstClaims(ctx: CliContext, files: { path: string; bytes: Buffer }[], o: ExplainOptions): Promise<void> {
  const format: Format = o.format ?? 'text';
  if (format !== 'text' && format !== 'markdown' && format !== 'json') throw new DomainError('validation_error', '--claims answers text, markdown or json: the loop is not a CSV');
  const { files: claimFiles, skipped } = await remitInputs(o.claims!);
  for (const s of skipped) ctx.io.stderr(safeLines([`skipped ${s}: not an X12 file`]));
  const l = await mountAndLoad(ctx, true);
  const [{ checkClaims }, { closeLoop }] = await Promise.all([import('../../server/claims/service.js'), import('../../server/claims/loop.js')]);
  const asOf = o.asOf ?? todayOf(new Date());
  const md = format === 'markdown';
  try {
    const checks = [];
    for (const { path, bytes } of claimFiles) {
      checks.push(await naming(path, checkClaims(l.snapshot, bytes, { asOf, today: todayOf(new Date()), where: { ccn: o.ccn, locality: o.locality }, trace: new l.Trace(l.snapshot, () => new Date()) })));
    }
    const remitted: Parameters<typeof closeLoop>[0][number][] = [];
    const answers: unknown[] = [];
    const batch = files.length > 1 ? new l.Batch() : undefined;
    for (const [i, { path, bytes }] of files.entries()) {
      if (batch) batch.file = path;
      const { trace, ex } = await prepared(l, path, bytes, { ...o, asOf }, { batch, name: files.length > 1 ? path : undefined });
      if (format === 'json') {
        const e = await ex.explainWith({ claim: async (tx, claim) => void (tx.claims.push(claim), remitted.push(claim)) });
        answers.push({ ...e, reliability: trace.reliability() });
        continue;
      }
      const writer = new RemitText(files.length > 1 ? path : null, md, (s) => ctx.io.stdout(s));
      const e = await ex.explainWith({ claim: async (tx, claim) => (remitted.push(claim), writer.claim(tx, claim)) });
      writer.finish({ ...e, reliability: trace.reliability() });
      if (i < files.length - 1) ctx.io.stdout('\n');
    }
    const loop = closeLoop(remitted, checks);
    if (format === 'json') return ctx.io.stdout(jsonSafe(`${JSON.stringify({ files: answers, loop })}\n`));
    ctx.io.stdout(safeLines(['', ...loopText(loop, md)]));
  } finally {
    l.snapshot.close();
  }
}
