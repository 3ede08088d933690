import { resolve } from 'node:path';
import { backupDataDir } from '../../warehouse/backup.js';
import type { CliContext } from '../context.js';
import { fmtInt } from '../format.js';
import { safeLines } from '../../lib/safe_text.js';

/** `rcm backup DIR`: a servable copy of the data dir, taken while it is served (README, "Backup, restore and retention"). */
export async function backup(ctx: CliContext, dir: string, o: { json?: boolean }): Promise<void> {
  const r = await backupDataDir(ctx.wh(), resolve(dir), { stateUrl: ctx.cfg().RCM_STATE_URL });
  if (o.json || !ctx.io.isTTY) return ctx.json(r);
  ctx.io.stdout(
    safeLines([
      `backed up ${r.snapshots} snapshot${r.snapshots === 1 ? '' : 's'} (serving ${r.current ?? 'none'}), ${fmtInt(r.files)} files, ${fmtInt(Math.round(r.bytes / 1024))} KB to ${r.dir}`,
      r.state === 'postgres' ? 'the state store is PostgreSQL (RCM_STATE_URL): back it up with pg_dump' : r.state === 'sqlite' ? 'state.sqlite copied with SQLite\'s online backup' : 'no state store file yet',
      `restore: serve it as RCM_DATA_DIR=${r.dir}`,
    ]),
  );
}
