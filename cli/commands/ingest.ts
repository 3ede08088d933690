import { resolve } from 'node:path';
import { lookupDataset, unknownDataset } from '../../datasets/registry.js';
import { ingestFiles, GateError, type IngestSummary } from '../../ingest/pipeline.js';
import type { DiffReport } from '../../ingest/diff.js';
import { UsageError } from '../../warehouse/errors.js';
import type { CliContext } from '../context.js';
import { diffMarkdown, diffText, fmtInt, progressLine } from '../format.js';
import { EXIT, ExitCode } from '../io.js';
import { safeLines } from '../../lib/safe_text.js';

type Format = 'text' | 'json' | 'markdown';

function summaryLines(s: IngestSummary, markdown: boolean): string {
  const b = markdown ? '**' : '';
  const lines = [
    `${s.dry_run ? `${b}dry run:${b} ` : ''}${s.dataset} ${s.version} (effective ${s.effective_date ?? 'n/a'}): ${fmtInt(s.rows)} rows, ${fmtInt(s.rejects)} rejected${s.rejects_file ? ` (${s.rejects_file})` : ''}`,
    ...s.skipped.map((k) => `skipped ${k.member}: ${k.reason}`),
    ...(s.effective_date ? [] : ['no effective date in the file: pass --effective-date YYYY-MM-DD so date-of-service lookups can tell when this release applies']),
    ...(s.change.replaced_seeds ? [`replaces seed version${s.change.replaced_seeds.length > 1 ? 's' : ''} ${s.change.replaced_seeds.join(', ')}: the seeds are no longer served`] : []),
    s.snapshot_id ? `published snapshot ${s.snapshot_id}` : 'nothing published',
  ];
  // Labels, member names and reasons come from the files: every line terminal-safe.
  return safeLines(lines.map((l) => (markdown ? `- ${l}` : l)));
}

function printReport(ctx: CliContext, r: DiffReport, format: Format): void {
  if (format === 'markdown') ctx.io.stdout(diffMarkdown(r) + '\n');
  else if (format === 'text') ctx.io.stdout(diffText(r) + '\n');
}

/** `rcm ingest`: stage, gate, diff and publish a dataset version (exit 3 when a gate refuses). */
export async function ingest(
  ctx: CliContext,
  dataset: string,
  files: string[],
  o: { version?: string; effectiveDate?: string; dryRun?: boolean; failOnRemoved?: number; failOnChanged?: { pct: number; columns: string[] }; replace?: boolean; allowRemovals?: boolean; rejectThreshold?: number; format?: Format; json?: boolean },
): Promise<void> {
  if (!lookupDataset(dataset)) throw new UsageError(unknownDataset(dataset));
  const c = ctx.cfg();
  const format: Format = o.format ?? (o.json || !ctx.io.isTTY ? 'json' : 'text');
  const progress = format === 'text' && ctx.io.isTTY;
  let summary: IngestSummary;
  try {
    summary = await ingestFiles(ctx.wh(), {
      dataset,
      files: files.map((f) => resolve(f)),
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
      onProgress: progress ? (p) => ctx.io.stderr(`\r\x1b[2K${progressLine(p)}`) : undefined,
    });
  } catch (e) {
    // End the progress line first, so no message or report runs into it.
    if (progress) ctx.io.stderr('\n');
    if (!(e instanceof GateError)) throw e;
    // The report goes out in the chosen format, so a data team's CI shows what failed.
    const outcome = o.dryRun ? 'dry run, nothing published' : 'refused, nothing published';
    if (format === 'json') ctx.json({ dataset, refused: true, dry_run: Boolean(o.dryRun), published: false, reason: e.message, report: e.report });
    else {
      printReport(ctx, e.report, format);
      ctx.io.stdout(format === 'markdown' ? `**${outcome}**\n` : `${outcome}\n`);
    }
    ctx.io.stderr(safeLines([`rcm: ${e.message}`]));
    throw new ExitCode(EXIT.threshold);
  }
  if (progress) ctx.io.stderr('\n');
  if (format === 'json') return ctx.json(summary);
  ctx.io.stdout(summaryLines(summary, format === 'markdown'));
  printReport(ctx, summary.report, format);
}
