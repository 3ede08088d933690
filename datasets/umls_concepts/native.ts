import { randomBytes } from 'node:crypto';
import type { FileSample, SourceFile } from '../_shared/source.js';
import { quoteString } from '../../warehouse/sql_quote.js';
import type { NativeLoadResult } from '../types.js';

// The native load: DuckDB's read_csv over MRCONSO's bars, with the parser's row rules in SQL.

type Run = (sql: string) => Promise<Record<string, unknown>[]>;

const FIELDS = ['cui', 'lat', 'ts', 'lui', 'stt', 'sui', 'ispref', 'aui', 'saui', 'scui', 'sdui', 'sab', 'tty', 'code', 'str', 'srl', 'suppress', 'cvf'];
const OPTIONAL = new Set(['saui', 'scui', 'sdui', 'cvf']);

/**
 * Loads MRCONSO.RRF files with DuckDB's reader in one streaming pass each: 18 fields and the empty
 * one after the trailing bar, every field VARCHAR, no quoting (a `"` is data). A line that does not
 * split into 19 fields lands in the reader's rejects; a row outside the parser's rules (CUI, AUI,
 * SRL, empty string, text after the last bar) keeps a NULL version. Either way the load is undone
 * and null returned, so the row parser reads the files and names every rejected line and field.
 */
export async function loadMrconsoNative(files: SourceFile[], _samples: FileSample[], run: Run, main: string, version: string): Promise<NativeLoadResult | null> {
  const count = async (sql: string) => Number(Object.values((await run(sql))[0] ?? {})[0] ?? 0);
  const undo = async () => {
    await run(`DELETE FROM ${main}`);
    return null;
  };
  let rows = 0;
  for (const file of files) {
    const tag = `mrconso_${randomBytes(6).toString('hex')}`;
    const cols = Array.from({ length: 19 }, (_, k) => `'c${k}': 'VARCHAR'`).join(', ');
    const src =
      `read_csv(${quoteString(file.path)}, delim='|', header=false, quote='', escape='', auto_detect=false, strict_mode=true, null_padding=false, ` +
      `encoding='utf-8', store_rejects=true, rejects_table='${tag}_t', rejects_scan='${tag}_s', columns={${cols}})`;
    const values = FIELDS.map((f, k) => (f === 'srl' ? `TRY_CAST(c${k} AS INTEGER)` : OPTIONAL.has(f) ? `nullif(c${k}, '')` : `coalesce(c${k}, '')`));
    const gate = [
      `regexp_full_match(coalesce(c0, ''), 'C[0-9]{7}')`,
      `regexp_full_match(coalesce(c7, ''), 'A[0-9]+')`,
      `regexp_full_match(coalesce(c15, ''), '[0-9]')`,
      `coalesce(c14, '') <> ''`,
      'c18 IS NULL',
    ].join(' AND ');
    let inserted: number;
    try {
      inserted = await count(`INSERT INTO ${main} (${FIELDS.join(', ')}, version) SELECT ${values.join(', ')}, CASE WHEN ${gate} THEN ${quoteString(version)} END FROM ${src}`);
    } catch {
      return undo(); // DuckDB refused the file outright (not UTF-8, say): the parser names the line
    }
    const broken = await count(`SELECT count(*) FROM ${tag}_t`);
    await run(`DROP TABLE IF EXISTS ${tag}_t; DROP TABLE IF EXISTS ${tag}_s`);
    const bad = await count(`SELECT count(*) FROM ${main} WHERE version IS NULL`);
    if (broken > 0 || bad > 0 || inserted === 0) return undo();
    rows += inserted;
  }
  return { rows, rejects: [] };
}
