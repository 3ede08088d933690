import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { lookupDataset, unknownDataset } from '../../datasets/registry.js';
import { ingestFiles, GateError, type IngestSummary } from '../../ingest/pipeline.js';
import type { DiffReport } from '../../ingest/diff.js';
import { ingestRelease, type ReleaseSummary } from '../../ingest/release.js';
import { stageFiles } from '../../ingest/staging.js';
import { UsageError } from '../../warehouse/errors.js';
import type { CliContext } from '../context.js';
import { answersChanged, answersLine } from '../answers.js';
import { diffMarkdown, diffText, fmtInt, progressLine } from '../format.js';
import { EXIT, ExitCode } from '../io.js';
import { safeLines } from '../../lib/safe_text.js';

type Format = 'text' | 'json' | 'markdown';

function summaryLines(s: IngestSummary, markdown: boolean): string {
  const b = markdown ? '**' : '';
  const lines = [
    `${s.dry_run ? `${b}dry run:${b} ` : ''}${s.dataset} ${s.version} (effective ${s.effective_date}): ${fmtInt(s.rows)} rows, ${fmtInt(s.rejects)} rejected${s.rejects_file ? ` (${s.rejects_file})` : ''}`,
    ...s.skipped.map((k) => `skipped ${k.member}: ${k.reason}`),
    answersLine(answersChanged(s.dataset, s.report), s.report),
    ...(s.change.replaced_seeds ? [`replaces seed version${s.change.replaced_seeds.length > 1 ? 's' : ''} ${s.change.replaced_seeds.join(', ')}: the seeds are no longer served`] : []),
    s.snapshot_id ? `published snapshot ${s.snapshot_id}` : 'nothing published',
  ];
  // Labels, member names and reasons come from the files: every line terminal-safe.
  return safeLines(lines.map((l) => (markdown ? `- ${l}` : l)));
}

/** A folder, or a file named .zip: what `rcm ingest` takes alone as a whole release. */
async function isRelease(path: string): Promise<boolean> {
  const st = await stat(path).catch(() => null);
  return Boolean(st?.isDirectory() || (st?.isFile() && /\.zip$/i.test(path)));
}

function printReport(ctx: CliContext, r: DiffReport, format: Format): void {
  if (format === 'markdown') ctx.io.stdout(diffMarkdown(r) + '\n');
  else if (format === 'text') ctx.io.stdout(diffText(r) + '\n');
}

type IngestFlags = {
  version?: string;
  effectiveDate?: string;
  dryRun?: boolean;
  failOnRemoved?: number;
  failOnChanged?: { pct: number; columns: string[] };
  replace?: boolean;
  allowRemovals?: boolean;
  rejectThreshold?: number;
  skipFailed?: boolean;
  stage?: string;
  format?: Format;
  json?: boolean;
};

/**
 * `rcm ingest DATASET FILE...`: stage, gate, diff and publish a dataset version (exit 3 when a gate
 * refuses). `rcm ingest RELEASE` (a folder or zip alone): every file to its dataset, one snapshot.
 * `rcm ingest --stage LABEL FILE...`: the files added to a staged release, nothing published.
 */
export async function ingest(ctx: CliContext, first: string, files: string[], o: IngestFlags): Promise<void> {
  if (o.stage !== undefined) return stage(ctx, o.stage, lookupDataset(first) ? files : [first, ...files], o);
  if (!lookupDataset(first)) {
    if (files.length === 0 && (await isRelease(first))) return release(ctx, first, o);
    throw new UsageError(unknownDataset(first));
  }
  if (files.length === 0) throw new UsageError(`name the files of the ${first} version: rcm ingest ${first} FILE... (or a folder or .zip alone to load a whole release)`);
  if (o.skipFailed) throw new UsageError('--skip-failed is for a release (a folder or .zip given alone)');
  const dataset = first;
  const format: Format = o.format ?? (o.json || !ctx.io.isTTY ? 'json' : 'text');
  const progress = format === 'text' && ctx.io.isTTY;
  let summary: IngestSummary;
  try {
    summary = await ingestFiles(ctx.wh(), {
      ...gateOptions(ctx, o),
      dataset,
      files: files.map((f) => resolve(f)),
      onProgress: progress ? (p) => ctx.io.stderr(`\r\x1b[2K${progressLine(p)}`) : undefined,
    });
  } catch (e) {
    // End the progress line first, so no message or report runs into it.
    if (progress) ctx.io.stderr('\n');
    if (!(e instanceof GateError)) throw e;
    // The report goes out in the chosen format, so a data team's CI shows what failed.
    const outcome = o.dryRun ? 'dry run, nothing published' : 'refused, nothing published';
    if (format === 'json') ctx.json({ dataset, refused: true, dry_run: Boolean(o.dryRun), published: false, reason: e.message, report: e.report, answers_changed: answersChanged(dataset, e.report) });
    else {
      printReport(ctx, e.report, format);
      ctx.io.stdout(format === 'markdown' ? `**${outcome}**\n` : `${outcome}\n`);
    }
    ctx.io.stderr(safeLines([`rcm: ${e.message}`]));
    throw new ExitCode(EXIT.threshold);
  }
  if (progress) ctx.io.stderr('\n');
  if (format === 'json') return ctx.json({ ...summary, answers_changed: answersChanged(summary.dataset, summary.report) });
  ctx.io.stdout(summaryLines(summary, format === 'markdown'));
  printReport(ctx, summary.report, format);
}

/** The options of an ingest from its flags and the settings (a release applies them to every version). */
function gateOptions(ctx: CliContext, o: IngestFlags) {
  const c = ctx.cfg();
  return {
    version: o.version,
    effectiveDate: o.effectiveDate,
    dryRun: o.dryRun,
    replace: o.replace,
    allowRemovals: o.allowRemovals,
    maxRemoved: c.RCM_MAX_REMOVED,
    memoryMb: c.RCM_INGEST_MEMORY_MB,
    failOnRemovedPct: o.failOnRemoved,
    failOnChangedPct: o.failOnChanged?.pct,
    failOnChangedColumns: o.failOnChanged?.columns,
    zipMaxBytes: c.RCM_ZIP_MAX_MB * 1024 * 1024,
    rejectThreshold: o.rejectThreshold !== undefined ? o.rejectThreshold / 100 : c.RCM_REJECT_THRESHOLD,
  };
}

/** `rcm ingest RELEASE`: a folder or zip, every file to its dataset, one snapshot (exit 1 when a version failed and nothing was published). */
async function release(ctx: CliContext, path: string, o: IngestFlags): Promise<void> {
  const format: Format = o.format ?? (o.json || !ctx.io.isTTY ? 'json' : 'text');
  const progress = format === 'text' && ctx.io.isTTY;
  let summary: ReleaseSummary;
  try {
    summary = await ingestRelease(ctx.wh(), resolve(path), {
      ...gateOptions(ctx, o),
      skipFailed: o.skipFailed,
      shownAs: path,
      onProgress: progress ? (p) => ctx.io.stderr(`\r\x1b[2K${progressLine(p)}`) : undefined,
    });
  } finally {
    // End the progress line first, so no message or report runs into it.
    if (progress) ctx.io.stderr('\n');
  }
  printRelease(ctx, summary, format);
  if (summary.failed.length && !summary.published && !o.skipFailed) {
    ctx.io.stderr(safeLines([`rcm: ${summary.failed.length} of ${summary.failed.length + summary.versions.length} versions failed: nothing published (--skip-failed publishes the others)`]));
    throw new ExitCode(summary.failed.every((f) => f.reason.startsWith('refused:')) ? EXIT.threshold : EXIT.error);
  }
}

/** A release's report: each version, each failure with the command that would load it, then every file. */
export function printRelease(ctx: CliContext, s: ReleaseSummary, format: Format): void {
  if (format === 'json') return ctx.json({ ...s, versions: s.versions.map((v) => ({ ...v, answers_changed: answersChanged(v.dataset, v.report) })) });
  const md = format === 'markdown';
  const item = (l: string) => (md ? `- ${l}` : l);
  const lines: string[] = [];
  const outcome = s.published ? `published snapshot ${s.snapshot_id}` : s.dry_run ? 'dry run: nothing published' : 'nothing published';
  lines.push(`${md ? '**' : ''}${s.release}${md ? '**' : ''}: ${s.versions.length} version${s.versions.length === 1 ? '' : 's'} staged, ${s.failed.length} failed; ${outcome}`);
  for (const v of s.versions) {
    const seeds = v.replaced_seeds?.length ? `, replaces seed ${v.replaced_seeds.join(', ')}` : '';
    lines.push(item(`${v.dataset} ${v.version} (effective ${v.effective_date}): ${fmtInt(v.rows)} rows, ${fmtInt(v.rejects)} rejected, +${fmtInt(v.report.counts.added)} -${fmtInt(v.report.counts.removed)} ~${fmtInt(v.report.counts.changed)}${seeds}`), item(`  ${answersLine(answersChanged(v.dataset, v.report), v.report)}`));
  }
  for (const f of s.failed) lines.push(item(`FAILED ${f.dataset}${f.version ? ` ${f.version}` : ''} (${f.files.join(', ')}): ${f.reason}`), item(`  to load it alone: ${f.command}`));
  lines.push(md ? '' : '', md ? '| file | dataset | status | rows | command |' : 'files:');
  if (md) lines.push('|---|---|---|---:|---|');
  for (const e of s.files) {
    if (md) lines.push(`| ${e.file} | ${e.dataset ?? ''} | ${e.status}${e.note ? `: ${e.note}` : ''} | ${e.rows ?? ''} | \`${e.command}\` |`);
    else lines.push(`  ${e.file}: ${e.dataset ? `${e.dataset} ${e.version ?? '?'} ${e.status}${e.rows !== null ? ` (${fmtInt(e.rows)} rows)` : ''}` : e.status}${e.note ? ` - ${e.note}` : ''}; ${e.command}`);
  }
  ctx.io.stdout(safeLines(lines));
}

/** `rcm ingest --stage LABEL FILE...`: the files added to a staged release; nothing published. */
async function stage(ctx: CliContext, label: string, files: string[], o: IngestFlags): Promise<void> {
  if (o.dryRun || o.skipFailed) throw new UsageError('--stage adds files and publishes nothing: --dry-run and --skip-failed belong to `rcm stage publish`');
  const added = await stageFiles(ctx.wh(), label, files.map((f) => resolve(f)), ctx.cfg().RCM_ZIP_MAX_MB * 1024 * 1024);
  const format: Format = o.format ?? (o.json || !ctx.io.isTTY ? 'json' : 'text');
  if (format === 'json') return ctx.json({ label, files: added });
  ctx.io.stdout(safeLines([...added.map((a) => `${a.added ? 'staged' : 'already staged'} ${a.file} (${a.datasets.join(', ')}) in ${label}`), `\`rcm stage list\` shows what ${label} holds; \`rcm stage publish ${label}\` publishes it`]));
}
