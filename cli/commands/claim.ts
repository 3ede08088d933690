import { todayOf } from '../../datasets/_shared/dates.js';
import { jsonSafe, safeLines, terminalSafe } from '../../lib/safe_text.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import type { CliContext } from '../context.js';
import { naming, remitInputs } from '../remit_input.js';

type Format = 'text' | 'markdown' | 'json' | 'csv';

export interface ClaimCheckOptions {
  format?: Format;
  asOf?: string;
  ccn?: string;
  locality?: string;
}

/** The check code, loaded while the snapshot mounts. */
const checker = () => Promise.all([import('../../server/claims/service.js'), import('../../server/claims/csv.js'), import('../../server/claims/findings.js'), import('../../server/trace.js')]);

type Loaded = Awaited<ReturnType<typeof checker>>;
type Check = Awaited<ReturnType<Loaded[0]['checkClaims']>>;

/** One claim as text (or markdown): its status, sums, then each finding that is not a pass, with its line, prediction and fix. */
function claimText(c: Check['claims'][number], md: boolean, label: Loaded[2]['predictionLabel']): string[] {
  const money = (n: number | null) => (n === null ? 'not priced' : `$${n.toFixed(2)}`);
  const head = `${md ? '### ' : ''}claim ${c.patient_control_number} (${c.payer.slug ?? c.payer.name ?? 'payer unknown'}): ${c.status}; expected allowed ${money(c.expected_allowed)}${c.submit_by?.date ? `; submit by ${c.submit_by.date}` : ''}`;
  const rows: string[] = [];
  const all = [...c.findings.map((f) => ({ f, line: null as number | null })), ...c.lines.flatMap((l) => l.findings.map((f) => ({ f, line: l.line_number as number | null })))];
  for (const { f, line } of all) {
    if (f.status === 'pass') continue;
    const where = line === null ? 'claim' : `line ${line}`;
    const predicted = label(f);
    rows.push(`${md ? '- ' : '  '}${where} ${f.kind} ${f.status}${predicted ? ` (${predicted})` : ''}: ${f.message}${f.fix ? ` -> ${f.fix}` : ''}`);
  }
  for (const u of c.unchecked) rows.push(`${md ? '- ' : '  '}not checked: ${u.check}: ${u.reason}`);
  return [head, ...rows];
}

/**
 * `rcm claim check FILE|FOLDER...`: each 837 checked against the current snapshot as POST
 * /v1/claims/check checks it. Text and markdown name each claim's status and every finding that
 * is not a pass; JSON is the API answer (several files: `{files: [{file, ...answer}]}`); CSV one
 * row per finding. Exit 1 naming the file for one missing or no X12, and the segment for one
 * that cannot be read.
 */
export async function check(ctx: CliContext, args: string[], o: ClaimCheckOptions): Promise<void> {
  const { files, skipped } = await remitInputs(args);
  for (const s of skipped) ctx.io.stderr(safeLines([`skipped ${s}: not an X12 file`]));
  const manifest = await ctx.currentManifest();
  // The snapshot mounts while the check code loads (DuckDB attaches on its own threads).
  const [snapshot, [{ checkClaims }, { claimCheckCsv }, { predictionLabel }, { Trace }]] = await Promise.all([MountedSnapshot.open(ctx.wh(), manifest, { connections: 1, threads: 1 }), checker()]);
  const format = o.format ?? 'text';
  const asOf = o.asOf ?? todayOf(new Date());
  const many = files.length > 1;
  try {
    const answers: { file: string; check: Check }[] = [];
    for (const { path, bytes } of files) {
      const trace = new Trace(snapshot, () => new Date());
      answers.push({ file: path, check: await naming(path, checkClaims(snapshot, bytes, { asOf, today: todayOf(new Date()), where: { ccn: o.ccn, locality: o.locality }, trace })) });
    }
    if (format === 'json') return ctx.io.stdout(jsonSafe(`${JSON.stringify(many ? { files: answers.map((a) => ({ file: a.file, ...a.check })) } : answers[0]!.check)}\n`));
    if (format === 'csv') return ctx.io.stdout(claimCheckCsv(answers.map((a) => ({ file: many ? a.file : null, check: a.check }))));
    const md = format === 'markdown';
    const lines: string[] = [];
    for (const { file, check } of answers) {
      if (many) lines.push(`${md ? '## ' : ''}${terminalSafe(file)}`);
      for (const c of check.claims) lines.push(...claimText(c, md, predictionLabel));
      for (const f of check.cross_claim_findings) lines.push(`${md ? '- ' : ''}across claims ${f.kind} ${f.status} (${predictionLabel(f)}): ${f.message} -> ${f.fix}`);
      const s = check.summary;
      lines.push(`${md ? '\n' : ''}${s.claims} claim${s.claims === 1 ? '' : 's'}: ${s.clean} clean, ${s.issues} with issues, ${s.incomplete} incomplete; predicted ${Object.entries(s.predicted).map(([k, v]) => `${k} x${v}`).join(', ') || 'nothing'}`, '');
    }
    ctx.io.stdout(safeLines(lines));
  } finally {
    snapshot.close();
  }
}
