import { ValidationError } from '../../warehouse/errors.js';
import { isStateUrl, stateLocationOf } from '../../warehouse/open_state.js';
import { copySqliteToPostgres } from '../../warehouse/pg/copy.js';
import type { CliContext } from '../context.js';

/** `rcm state migrate`: pending schema migrations applied, the version printed. */
export function migrate(ctx: CliContext): Promise<void> {
  return ctx.withState(async (st) => {
    const engine = stateLocationOf(ctx.wh().dir, ctx.cfg().RCM_STATE_URL).engine;
    ctx.io.stdout(`state store (${engine}) at schema version ${await st.schemaVersion()}\n`);
  });
}

/** `rcm state copy`: a SQLite state file into an empty PostgreSQL database, in one transaction. */
export async function copy(ctx: CliContext, o: { from: string; to: string }): Promise<void> {
  const issues = [];
  if (!/^sqlite:.+/.test(o.from)) issues.push({ loc: ['option', 'from'], msg: 'expected sqlite:<path to state.sqlite>', type: 'format' });
  if (!isStateUrl(o.to)) issues.push({ loc: ['option', 'to'], msg: 'expected postgres://user@host:port/database', type: 'format' });
  if (issues.length) throw new ValidationError(issues, 'rcm state copy: bad options');
  const report = await copySqliteToPostgres(o.from.slice('sqlite:'.length), o.to);
  for (const t of report.tables) ctx.io.stdout(`${t.table}  ${t.rows}\n`);
  const total = report.tables.reduce((a, t) => a + t.rows, 0);
  // The URL may carry a password: it is never printed.
  ctx.io.stdout(`copied ${total} rows in ${report.tables.length} tables (schema version ${report.schema_version}) to PostgreSQL\n`);
}
