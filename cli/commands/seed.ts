import type { Command } from 'commander';
import { seedAll } from '../../ingest/seed.js';
import { SEEDS_DIR, type CliContext } from '../context.js';
import { fmtInt } from '../format.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('seed')
    .description("Load the embedded seeds/ (small files in the publishers' formats) as one snapshot")
    .option('--if-empty', 'only when no snapshot exists yet')
    .option('--json', 'print JSON')
    .action(async (o: { ifEmpty?: boolean; json?: boolean }) => {
      const w = ctx.wh();
      if (o.ifEmpty && (await w.currentId())) return ctx.io.stdout('a snapshot exists; seeds not loaded\n');
      const res = await seedAll(w, SEEDS_DIR);
      if (o.json) return ctx.json({ snapshot_id: res.snapshotId, versions: res.staged.map((s) => s.summary) });
      for (const s of res.staged) ctx.io.stdout(`${s.summary.dataset} ${s.summary.version}: ${fmtInt(s.summary.rows)} rows\n`);
      ctx.io.stdout(`published snapshot ${res.snapshotId}\n`);
    });
}
