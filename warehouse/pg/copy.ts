import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { ConflictError, ValidationError } from '../errors.js';
import { SqliteStateStore } from '../state.js';
import { PG_MIGRATIONS } from './schema.js';
import { PgStateStore } from './state.js';

/** Rows copied per table, in the order they were copied (referenced tables first). */
export interface CopyReport {
  schema_version: number;
  tables: { table: string; rows: number }[];
}

/** Rows per INSERT: PostgreSQL takes at most 65,535 parameters in one statement. */
const PARAMS_PER_INSERT = 60_000;

/**
 * `rcm state copy`: moves an embedded install's state (the SQLite file) into an empty PostgreSQL
 * database, every row of every table, in one transaction on the target, so a failure leaves it
 * empty. The source is first brought to the latest SQLite schema (what `rcm serve` would do on
 * start) and must be at the version PostgreSQL's migrations reach; the target is migrated, and
 * refused when any of its tables holds a row. Tables go in creation order (referenced before
 * referencing); row ids are kept, and the chunk identity continues after the highest. Row counts
 * are compared per table before the commit.
 */
export async function copySqliteToPostgres(file: string, url: string, now: () => Date = () => new Date()): Promise<CopyReport> {
  if (!existsSync(file)) throw new ValidationError([{ loc: ['option', 'from'], msg: `no SQLite state file at ${file}`, type: 'missing' }]);
  const upgraded = new SqliteStateStore(file, now);
  const version = await upgraded.schemaVersion();
  await upgraded.close();
  const target = PG_MIGRATIONS.at(-1)!.version;
  if (version !== target) {
    throw new ConflictError(`the SQLite state is at schema version ${version} and PostgreSQL's migrations reach ${target}: copy with the release that has both at one version`);
  }
  const src = new Database(file, { readonly: true });
  const pg = await PgStateStore.open(url, now, 1);
  const client = await pg.pool.connect();
  try {
    const tables = (src.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations' AND name NOT LIKE 'sqlite_%' ORDER BY rowid").all() as { name: string }[]).map((r) => r.name);
    // The same tables on both sides (the versions agree; a hand-made extra table is refused, not guessed at).
    const known = new Set(
      (await client.query<{ t: string }>(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_name NOT IN ('schema_migrations', 'rate_windows')`)).rows.map((r) => r.t),
    );
    const odd = [...tables.filter((t) => !known.has(t)), ...[...known].filter((t) => !tables.includes(t))];
    if (odd.length) throw new ConflictError(`the SQLite and PostgreSQL schemas differ in tables ${odd.join(', ')}`);
    await client.query('BEGIN');
    // No one writes the target while it is checked and filled.
    await client.query(`LOCK TABLE ${tables.map((t) => `"${t}"`).join(', ')} IN EXCLUSIVE MODE`);
    const held = [];
    for (const t of tables) {
      const { n } = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${t}"`)).rows[0]!;
      if (n) held.push(`${t} (${n})`);
    }
    if (held.length) throw new ConflictError(`the PostgreSQL database already holds state rows: ${held.join(', ')}; copy into an empty one`);
    const report: CopyReport = { schema_version: version, tables: [] };
    for (const t of tables) {
      const cols = (src.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(t) as { name: string }[]).map((c) => c.name);
      const per = Math.max(1, Math.floor(PARAMS_PER_INSERT / cols.length));
      const list = cols.map((c) => `"${c}"`).join(', ');
      let batch: unknown[][] = [];
      let rows = 0;
      const flush = async () => {
        if (!batch.length) return;
        let i = 0;
        const values = batch.map((r) => `(${r.map(() => `$${++i}`).join(', ')})`).join(', ');
        await client.query(`INSERT INTO "${t}" (${list}) VALUES ${values}`, batch.flat());
        rows += batch.length;
        batch = [];
      };
      for (const r of src.prepare(`SELECT ${list} FROM "${t}"`).raw().iterate() as Iterable<unknown[]>) {
        batch.push(r);
        if (batch.length >= per) await flush();
      }
      await flush();
      const { n } = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${t}"`)).rows[0]!;
      if (n !== rows) throw new Error(`copy of ${t} wrote ${n} rows for ${rows} read`);
      report.tables.push({ table: t, rows });
    }
    // Identity columns continue after the copied ids.
    const identities = (
      await client.query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'`,
      )
    ).rows;
    for (const c of identities) {
      await client.query(`SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max("${c.column_name}") FROM "${c.table_name}"), 0) + 1, false)`, [`"${c.table_name}"`, c.column_name]);
    }
    await client.query('COMMIT');
    return report;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
    src.close();
    await pg.close();
  }
}
