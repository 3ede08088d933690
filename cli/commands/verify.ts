import { readFile } from 'node:fs/promises';
import { safeLines } from '../../lib/safe_text.js';
import { DomainError, ValidationError } from '../../warehouse/errors.js';
import type { SourceFile } from '../../datasets/_shared/source.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { CliContext } from '../context.js';
import { EXIT, ExitCode } from '../io.js';

/**
 * `rcm verify pfrev FILE`: CMS's PFS payment-amount file read back through the payment
 * composition of the current snapshot, every row in both settings; exit 3 naming each difference
 * (a data team's CI runs it after an ingest), 0 when every amount matches to the cent.
 */
export async function pfrev(ctx: CliContext, file: string, o: { dateOfService?: string; json?: boolean }): Promise<void> {
  const text = await readFile(file, 'latin1').catch((e: NodeJS.ErrnoException) => {
    throw new DomainError(e.code === 'ENOENT' ? 'not_found' : 'validation_error', `${file}: ${e.code === 'ENOENT' ? 'file not found' : 'cannot be read'}`);
  });
  const { readPfrev, verifyPfrev } = await import('../../server/payment/verify.js');
  let rows;
  try {
    rows = readPfrev(text);
  } catch (e) {
    if (e instanceof ValidationError) throw new ValidationError(e.issues.map((i) => ({ ...i, loc: [file, ...i.loc.slice(1)] })));
    throw e;
  }
  await ctx.withSnapshot(async (snapshot) => {
    const r = await verifyPfrev(snapshot, rows, o.dateOfService);
    if (o.json) ctx.io.stdout(`${JSON.stringify(r)}\n`);
    else {
      const lines = [`${file}: ${r.checked} amounts (${rows.length} rows x 2 settings) on ${r.date_of_service}, mpfs_rvu ${r.rvu_version ?? 'none'}: ${r.differences.length} differ`];
      for (const d of r.differences) lines.push(`  line ${d.line}: ${d.code}${d.modifier ? `-${d.modifier}` : ''} ${d.locality} ${d.setting.replace('_', '-')}: PFREV ${d.expected.toFixed(2)}, answered ${d.answered === null ? `nothing (${d.why})` : d.answered.toFixed(2)}`);
      ctx.io.stdout(safeLines(lines));
    }
    if (r.differences.length) throw new ExitCode(EXIT.threshold);
  });
}

/**
 * `rcm verify opps-cap`: every priced row of the loaded OPPS cap release read back through the
 * payment composition, both settings: the lesser of the PFS amount and the cap; exit 3 naming each
 * difference. Cap rows whose locality the GPCI file lacks are listed as skipped.
 */
export async function oppsCap(ctx: CliContext, o: { dateOfService?: string; json?: boolean }): Promise<void> {
  const { verifyOppsCap } = await import('../../server/payment/verify.js');
  await ctx.withSnapshot(async (snapshot) => {
    const r = await verifyOppsCap(snapshot, o.dateOfService);
    if (o.json) ctx.io.stdout(`${JSON.stringify(r)}\n`);
    else {
      const lines = [`opps_cap ${r.version}: ${r.checked} amounts on ${r.date_of_service} (${r.capped} capped), ${r.skipped.length} rows skipped, ${r.differences.length} differ`];
      const skippedAt = [...new Set(r.skipped.map((s) => s.locality))];
      if (skippedAt.length) lines.push(`  skipped: localities ${skippedAt.join(', ')} are not in the loaded GPCI file`);
      for (const d of r.differences) lines.push(`  ${d.code}${d.modifier ? `-${d.modifier}` : ''} ${d.locality} ${d.setting.replace('_', '-')}: expected ${d.expected.toFixed(2)}, answered ${d.answered === null ? 'nothing' : d.answered.toFixed(2)}${d.why ? ` (${d.why})` : ''}`);
      ctx.io.stdout(safeLines(lines));
    }
    if (r.differences.length) throw new ExitCode(EXIT.threshold);
  });
}

/** A fee schedule file read back through its route's lookup: what `verifyClfs` and `verifyDmepos` answer. */
interface RoundTrip<D> {
  version: string | null;
  checked: number;
  differences: D[];
}

/** The most differences the text lists (`--json` lists every one). */
const LISTED = 1000;

/**
 * A fee schedule file read back through its route (`verify`), printed as JSON or a line per
 * difference (`describe`); exit 3 when any row differs.
 */
async function roundTrip<D>(ctx: CliContext, file: string, dataset: string, o: { json?: boolean }, verify: (snapshot: SnapshotReader, source: SourceFile) => Promise<RoundTrip<D>>, describe: (d: D) => string): Promise<void> {
  const { toSourceFile } = await import('../../datasets/_shared/source.js');
  const source = await toSourceFile(file);
  await ctx.withSnapshot(async (snapshot) => {
    const r = await verify(snapshot, source);
    if (o.json) ctx.io.stdout(`${JSON.stringify(r)}\n`);
    else {
      const lines = [`${file}: ${r.checked} rows against ${dataset} ${r.version ?? '(none loaded)'}: ${r.differences.length} differ`];
      for (const d of r.differences.slice(0, LISTED)) lines.push(`  ${describe(d)}`);
      if (r.differences.length > LISTED) lines.push(`  ... and ${r.differences.length - LISTED} more (--json lists every one)`);
      ctx.io.stdout(safeLines(lines));
    }
    if (r.differences.length) throw new ExitCode(EXIT.threshold);
  });
}

/**
 * `rcm verify clfs FILE`: a CLFS file read back through the lab route's lookup, every row's rate,
 * indicator and effective date; exit 3 naming each difference.
 */
export async function clfsFile(ctx: CliContext, file: string, o: { json?: boolean }): Promise<void> {
  const { verifyClfs } = await import('../../server/fee_schedules/verify.js');
  await roundTrip(ctx, file, 'clfs', o, verifyClfs, (d) => `line ${d.line}${d.code ? ` ${d.code}${d.modifier ? `-${d.modifier}` : ''}` : ''} ${d.field}: file ${d.file ?? 'null'}, answered ${d.answered ?? 'null'}`);
}

/**
 * `rcm verify dmepos FILE`: a DMEPOS fee schedule file read back through the DME route's lookup,
 * every state row's fees, ceiling, floor, category and jurisdiction; exit 3 naming each difference.
 */
export async function dmeposFile(ctx: CliContext, file: string, o: { json?: boolean }): Promise<void> {
  const { verifyDmepos } = await import('../../server/fee_schedules/verify.js');
  await roundTrip(ctx, file, 'dmepos', o, verifyDmepos, (d) => `line ${d.line}${d.code ? ` ${d.code}${d.modifiers ? `-${d.modifiers}` : ''} ${d.state}` : ''} ${d.field}: file ${d.file ?? 'null'}, answered ${d.answered ?? 'null'}`);
}
