import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { DATASETS, lookupDataset } from '../../datasets/registry.js';
import { ingestFiles, GateError, type IngestSummary } from '../../ingest/pipeline.js';
import type { DiffReport } from '../../ingest/diff.js';
import { UsageError } from '../../warehouse/errors.js';
import { EXIT, ExitCode, isoDate, percent, type CliContext, changedGate } from '../context.js';
import { diffMarkdown, diffText, fmtInt, progressLine } from '../format.js';

type Format = 'text' | 'json' | 'markdown';

function summaryLines(s: IngestSummary, markdown: boolean): string {
  const b = markdown ? '**' : '';
  const lines = [
    `${s.dry_run ? `${b}dry run:${b} ` : ''}${s.dataset} ${s.version} (effective ${s.effective_date ?? 'n/a'}): ${fmtInt(s.rows)} rows, ${fmtInt(s.rejects)} rejected${s.rejects_file ? ` (${s.rejects_file})` : ''}`,
    ...s.skipped.map((k) => `skipped ${k.member}: ${k.reason}`),
    s.snapshot_id ? `published snapshot ${s.snapshot_id}` : 'nothing published',
  ];
  return lines.map((l) => (markdown ? `- ${l}` : l)).join('\n') + '\n';
}

function printReport(ctx: CliContext, r: DiffReport, format: Format): void {
  if (format === 'markdown') ctx.io.stdout(diffMarkdown(r) + '\n');
  else if (format === 'text') ctx.io.stdout(diffText(r) + '\n');
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('ingest')
    .description(
      'Load source files (or the publisher\'s zip) as a new immutable dataset version, diff it against the version it follows, record the change and publish a snapshot. ' +
        'The publish is refused (exit 3) when a --fail-on-* threshold or the removal guard (RCM_MAX_REMOVED) is crossed, and refused (exit 1) for an existing label without --replace or a truncated file.',
    )
    .argument('<dataset>', 'dataset id (see `rcm datasets`)')
    .argument('<file...>', 'source files of one version (e.g. all four NCCI PTP parts), or the publisher\'s .zip')
    .option('--version <label>', 'version label (default: found in the file name or title)')
    .option('--effective-date <date>', 'date the version takes effect, YYYY-MM-DD (default: from the file)', isoDate)
    .option('--dry-run', 'stage, validate and diff against the version in force, print the report, publish nothing; every gate applies (thresholds and the removal guard) and the exit code is the real run\'s')
    .option('--fail-on-removed <pct>', 'refuse (exit 3, nothing published) when more than this share of the previous version\'s keys is removed', percent)
    .option('--fail-on-changed <pct[:columns]>', 'refuse (exit 3, nothing published) when more than this share of the previous version\'s rows changed a value (release metadata such as the year does not count); with :col,col only changes of those columns count, e.g. 5%:payment_rate', changedGate)
    .option('--replace', 'replace a version already loaded under the same label (the change record says what it supersedes)')
    .option('--allow-removals', 'publish even when more than RCM_MAX_REMOVED of the previous keys would be removed')
    .option('--reject-threshold <pct>', 'fail when more than this share of rows is rejected (default RCM_REJECT_THRESHOLD, 1%)', percent)
    .addOption(new Option('--format <format>', 'output: text, json (the summary with the diff report) or markdown').choices(['text', 'json', 'markdown']))
    .option('--json', 'same as --format json (also the default when stdout is not a terminal)')
    .action(
      async (
        dataset: string,
        files: string[],
        o: { version?: string; effectiveDate?: string; dryRun?: boolean; failOnRemoved?: number; failOnChanged?: { pct: number; columns: string[] }; replace?: boolean; allowRemovals?: boolean; rejectThreshold?: number; format?: Format; json?: boolean },
      ) => {
        if (!lookupDataset(dataset)) throw new UsageError(`unknown dataset '${dataset}' (known: ${DATASETS.map((d) => d.id).join(', ')})`);
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
            failOnRemovedPct: o.failOnRemoved,
            failOnChangedPct: o.failOnChanged?.pct,
            failOnChangedColumns: o.failOnChanged?.columns,
            zipMaxBytes: c.RCM_ZIP_MAX_MB * 1024 * 1024,
            rejectThreshold: o.rejectThreshold !== undefined ? o.rejectThreshold / 100 : c.RCM_REJECT_THRESHOLD,
            onProgress: progress ? (p) => ctx.io.stderr(`\r\x1b[2K${progressLine(p)}`) : undefined,
          });
        } catch (e) {
          if (!(e instanceof GateError)) throw e;
          // The report goes out in the chosen format, so a data team's CI shows what failed.
          if (format === 'json') ctx.json({ dataset, refused: true, reason: e.message, report: e.report });
          else printReport(ctx, e.report, format);
          ctx.io.stderr(`rcm: ${e.message}\n`);
          throw new ExitCode(EXIT.threshold);
        }
        if (progress) ctx.io.stderr('\n');
        if (format === 'json') return ctx.json(summary);
        ctx.io.stdout(summaryLines(summary, format === 'markdown'));
        printReport(ctx, summary.report, format);
      },
    );
}
