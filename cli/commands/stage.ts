import { dropStaged, listStaged, publishStaged } from '../../ingest/staging.js';
import { UsageError } from '../../warehouse/errors.js';
import type { CliContext } from '../context.js';
import { EXIT, ExitCode } from '../io.js';
import { safeLines } from '../../lib/safe_text.js';
import { printRelease } from './ingest.js';

type Format = 'text' | 'json' | 'markdown';

/** `rcm stage list`: each staged release, its files, and per version whether its set is complete. */
export async function list(ctx: CliContext, o: { json?: boolean }): Promise<void> {
  const staged = await listStaged(ctx.wh(), ctx.cfg().RCM_ZIP_MAX_MB * 1024 * 1024);
  if (o.json || !ctx.io.isTTY) return ctx.json(staged);
  if (staged.length === 0) return ctx.io.stdout('no staged release (`rcm ingest --stage LABEL FILE...` starts one)\n');
  const lines: string[] = [];
  for (const s of staged) {
    lines.push(`${s.label}: ${s.files.length} file${s.files.length === 1 ? '' : 's'}`);
    for (const v of s.versions) lines.push(`  ${v.dataset} ${v.version ?? '(no version stated)'}: ${v.files.join(', ')} - ${v.complete ? 'complete' : `incomplete: ${v.missing}`}`);
  }
  ctx.io.stdout(safeLines(lines));
}

/** `rcm stage publish LABEL`: the staged files as one release (all or nothing unless --skip-failed). */
export async function publish(ctx: CliContext, label: string, o: { dryRun?: boolean; skipFailed?: boolean; effectiveDate?: string; version?: string; allowRemovals?: boolean; replace?: boolean; format?: Format; json?: boolean }): Promise<void> {
  const c = ctx.cfg();
  const format: Format = o.format ?? (o.json || !ctx.io.isTTY ? 'json' : 'text');
  const summary = await publishStaged(ctx.wh(), label, {
    dryRun: o.dryRun,
    skipFailed: o.skipFailed,
    version: o.version,
    effectiveDate: o.effectiveDate,
    replace: o.replace,
    allowRemovals: o.allowRemovals,
    maxRemoved: c.RCM_MAX_REMOVED,
    memoryMb: c.RCM_INGEST_MEMORY_MB,
    zipMaxBytes: c.RCM_ZIP_MAX_MB * 1024 * 1024,
    rejectThreshold: c.RCM_REJECT_THRESHOLD,
  });
  printRelease(ctx, { ...summary, release: label }, format);
  if (summary.failed.length && !summary.published && !o.skipFailed) {
    ctx.io.stderr(safeLines([`rcm: ${label}: ${summary.failed.length} version${summary.failed.length === 1 ? '' : 's'} failed: nothing published, the staged files are kept`]));
    throw new ExitCode(EXIT.error);
  }
}

/** `rcm stage drop LABEL`: the staged files removed. */
export async function drop(ctx: CliContext, label: string): Promise<void> {
  if (!(await dropStaged(ctx.wh(), label))) throw new UsageError(`no staged release ${label} (\`rcm stage list\` lists them)`);
  ctx.io.stdout(safeLines([`dropped staged release ${label}`]));
}

