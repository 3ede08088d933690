import type { ChangeCounts, Manifest } from '../../warehouse/manifest.js';
import type { CliContext } from '../context.js';
import { fmtInt } from '../format.js';
import { safeLines } from '../../lib/safe_text.js';

/** What one snapshot changed against its parent: per dataset, the versions, row delta and change counts. */
export interface SnapshotChange {
  dataset: string;
  versions: string[];
  rows_before: number;
  rows_after: number;
  row_delta: number;
  counts: ChangeCounts | null;
}

export function changesOf(m: Manifest, parent: Manifest | undefined): SnapshotChange[] {
  const out: SnapshotChange[] = [];
  const seen = new Set(parent?.changes.map((c) => c.id) ?? []);
  const fresh = m.changes.filter((c) => !seen.has(c.id));
  for (const [dataset, versions] of Object.entries(m.datasets)) {
    const before = parent?.datasets[dataset] ?? [];
    const same = before.length === versions.length && before.every((v, i) => v.file === versions[i]!.file);
    if (same) continue;
    const rowsBefore = before.reduce((a, v) => a + v.rows, 0);
    const rowsAfter = versions.reduce((a, v) => a + v.rows, 0);
    const mine = fresh.filter((c) => c.dataset === dataset);
    const counts = mine.length
      ? mine.reduce<ChangeCounts>((a, c) => ({ added: a.added + c.counts.added, removed: a.removed + c.counts.removed, changed: a.changed + c.counts.changed, unchanged: a.unchanged + c.counts.unchanged }), { added: 0, removed: 0, changed: 0, unchanged: 0 })
      : null;
    out.push({ dataset, versions: versions.map((v) => v.version), rows_before: rowsBefore, rows_after: rowsAfter, row_delta: rowsAfter - rowsBefore, counts });
  }
  return out;
}

/** `rcm snapshots list`: the served one marked *, with the datasets each changed. */
export async function list(ctx: CliContext, o: { json?: boolean }): Promise<void> {
  const w = ctx.wh();
  const [all, cur] = await Promise.all([w.listSnapshots(), w.currentId()]);
  const byId = new Map(all.map((m) => [m.id, m]));
  const rows = all.map((m) => ({
    id: m.id,
    current: m.id === cur,
    created_at: m.created_at,
    parent: m.parent,
    changed: changesOf(m, m.parent ? byId.get(m.parent) : undefined),
    datasets: Object.fromEntries(Object.entries(m.datasets).map(([k, v]) => [k, v.map((x) => x.version)])),
  }));
  if (o.json) return ctx.json(rows);
  if (!rows.length) return ctx.io.stdout('no snapshots yet (run `rcm seed` or `rcm ingest`)\n');
  // Version labels come from the publishers' files: every line terminal-safe.
  for (const r of rows) {
    const lines = [`${r.current ? '*' : ' '} ${r.id}  ${r.created_at}  parent ${r.parent ?? '-'}  ${r.changed.length} dataset(s) changed`];
    for (const c of r.changed) {
      const delta = `${c.row_delta >= 0 ? '+' : ''}${fmtInt(c.row_delta)} rows (${fmtInt(c.rows_before)} -> ${fmtInt(c.rows_after)})`;
      const counts = c.counts ? `  +${fmtInt(c.counts.added)} -${fmtInt(c.counts.removed)} ~${fmtInt(c.counts.changed)}` : '';
      lines.push(`    ${c.dataset} ${c.versions.join('+')}: ${delta}${counts}`);
    }
    ctx.io.stdout(safeLines(lines));
  }
}

/** `rcm snapshots show`: a manifest. */
export async function show(ctx: CliContext, id: string): Promise<void> {
  ctx.json(await ctx.wh().readManifest(id));
}

/** `rcm snapshots prune --keep N`: the replicas' heartbeats read from the state store, then the prune. */
export async function prune(ctx: CliContext, o: { keep: number; dryRun?: boolean; json?: boolean }): Promise<void> {
  // Loaded here only: `rcm snapshots list` reads manifests and nothing of the ingest side.
  const { pruneSnapshots, REPLICA_GRACE_MS } = await import('../../ingest/prune.js');
  const now = new Date();
  const heartbeats = await ctx.withState(async (st) => {
    // A replica silent for a day is gone (a stopped server): its row goes.
    await st.replicas.forget(new Date(now.getTime() - 24 * 3600 * 1000));
    return st.replicas.since(new Date(now.getTime() - REPLICA_GRACE_MS));
  });
  const r = await pruneSnapshots(ctx.wh(), { keep: o.keep, heartbeats, dryRun: o.dryRun, now: () => now });
  if (o.json || !ctx.io.isTTY) return ctx.json(r);
  const verb = r.dry_run ? 'would remove' : 'removed';
  ctx.io.stdout(
    safeLines([
      ...r.kept.map((k) => `kept ${k.id} (${k.why.join(', ')})`),
      `${verb} ${r.removed_snapshots.length} snapshot${r.removed_snapshots.length === 1 ? '' : 's'} and ${r.removed_files.length} file${r.removed_files.length === 1 ? '' : 's'} (${fmtInt(Math.round(r.freed_bytes / 1024))} KB)`,
    ]),
  );
}

/** `rcm snapshots use`: serve this snapshot (rollback is `use` of an older one). */
export async function use(ctx: CliContext, id: string): Promise<void> {
  await ctx.wh().setCurrent(id);
  ctx.io.stdout(safeLines([`now serving snapshot ${id}`]));
}
