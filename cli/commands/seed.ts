import { seedAll } from '../../ingest/seed.js';
import { SEEDS_DIR, type CliContext } from '../context.js';
import { fmtInt } from '../format.js';
import { safeLines } from '../../lib/safe_text.js';

/** `rcm seed`: the embedded seeds/ as one snapshot (a dataset with a real version keeps it). */
export async function seed(ctx: CliContext, o: { ifEmpty?: boolean; json?: boolean }): Promise<void> {
  const w = ctx.wh();
  if (o.ifEmpty && (await w.currentId())) return ctx.io.stdout('a snapshot exists; seeds not loaded\n');
  const res = await seedAll(w, SEEDS_DIR);
  if (o.json) return ctx.json({ snapshot_id: res.snapshotId, versions: res.staged.map((s) => s.summary), kept_real: res.kept });
  // Version labels are read from the seed files: terminal-safe.
  ctx.io.stdout(safeLines(res.staged.map((s) => `${s.summary.dataset} ${s.summary.version}: ${fmtInt(s.summary.rows)} rows`)));
  for (const id of res.kept) ctx.io.stdout(`${id}: a real release is loaded; its seed is not loaded\n`);
  ctx.io.stdout(res.snapshotId ? `published snapshot ${res.snapshotId}\n` : 'nothing published\n');
}
