import { dataRecords, isBlankRecord } from '../_shared/header.js';
import { nativeCsvCheck, readCsvSql, WHITESPACE_CLASS } from '../_shared/native_csv.js';
import { textRecords, type SourceRecord } from '../_shared/source.js';
import { clean } from '../_shared/values.js';
import type { NativeLoader } from '../types.js';
import { columnsOf } from '../_shared/table.js';
import { quoteIdent, quoteString } from '../../warehouse/sql_quote.js';
import { isFixedWidthRvu, MpfsRvuRowSchema, NUMERIC, rvuLayout, type MpfsRvuRow } from './dataset.js';

/** Every numeric cell of a row joined by U+0001: each empty or a plain decimal (`0.00`, `00720.00`). */
const PLAIN_CELLS = '(?:\\d+(?:\\.\\d+)?)?(?:\\x01(?:\\d+(?:\\.\\d+)?)?)*';
/** HCPCS, modifier and status joined by U+0001, as `parse` checks them. */
const CODE_CELLS = '[A-Z0-9]{5}\\x01(?:[A-Z0-9]{2})?\\x01[A-Z]';
/** A cell (between U+0001 separators) starting or ending with what `clean()` trims. */
const EDGE_SPACE = `(?:^|\\x01)[${WHITESPACE_CLASS}]|[${WHITESPACE_CLASS}](?:\\x01|$)`;
/** The version marker of blank rows while they wait to be deleted. */
const BLANK = '\u0001blank';

/**
 * Loads PPRRVU files with DuckDB's `read_csv` in one pass per file: the same header search and
 * column mapping as `parse` (by stacked caption names, on the file's sample), and a row gate that
 * holds only for rows `parse` accepts unchanged: numbers plain decimals or empty, codes of the
 * right shape, no row two fields short, no cell `clean()` would change, no line break in a cell. A row
 * outside the gate is not judged here: the whole load is undone and null returned, so the JS
 * parser reads the files and reports every rejected line exactly. Real releases pass the gate.
 */
export const loadRvuNative: NativeLoader = async (files, samples, run, table, version) => {
  const columns = columnsOf(MpfsRvuRowSchema);
  const count = async (sql: string) => Number(Object.values((await run(sql))[0] ?? {})[0] ?? 0);
  const undo = async () => {
    await run(`DELETE FROM ${table}`);
    return null;
  };
  for (const [i, file] of files.entries()) {
    const sample = samples[i];
    // The fixed-width twin is read by `parse`, not by read_csv.
    if (!sample || isFixedWidthRvu(sample)) return undo();
    const records = (async function* () {
      yield* textRecords(sample.text, { name: file.name, size: sample.text.length });
    })();
    const layout = await rvuLayout(records, file);
    // The first data record, to prove DuckDB's line skip lands where the header search did.
    let first: SourceRecord | undefined;
    try {
      // Reads one record past the first, as this check always has (that one may be blank, hence keepBlank).
      for await (const rec of dataRecords(records, { keepBlank: true })) {
        if (first) break;
        if (!isBlankRecord(rec.fields)) first = rec;
      }
    } catch {
      return undo(); // a sample cut inside a quoted record: let the JS parser read the file
    }
    if (!first) return undo();
    const check = await nativeCsvCheck(file, layout.header.line, ',');
    if (!check) return undo();
    const width = layout.header.fields.length;
    const cells = Array.from({ length: width }, (_, k) => `c${k}`);
    // Only the last cell can be NULL in a row the gate passes (a row one field short).
    const at = (f: keyof MpfsRvuRow) => (layout.index.get(f) === width - 1 ? `coalesce(c${width - 1}, '')` : `c${layout.index.get(f)}`);
    const numeric = [...layout.index.keys()].filter((f) => NUMERIC.has(f)).map(at);
    const ok = [
      // null_padding fills a short row from the end; parse accepts a row one field short.
      width >= 2 ? `c${width - 2} IS NOT NULL` : 'true',
      `regexp_full_match(concat_ws(chr(1), ${numeric.join(', ')}), '${PLAIN_CELLS}')`,
      `regexp_full_match(${at('hcpcs')} || chr(1) || ${at('modifier')} || chr(1) || ${at('status_code')}, '${CODE_CELLS}')`,
    ];
    // The byte scan proves most files need neither test below; they run only when it cannot.
    if (!check.edgeFree) ok.push(`NOT regexp_matches(concat_ws(chr(1), ${cells.join(', ')}), '${EDGE_SPACE}')`);
    if (!check.singleLineRecords) ok.push(`NOT regexp_matches(concat(${cells.join(', ')}), '[\\r\\n]')`);
    const fixed: Record<string, string> = {
      year: String(layout.rel.year),
      quarter: String(layout.rel.quarter),
      cf_variant: quoteString(layout.variant),
      conv_factor_qpp: 'NULL',
    };
    const values = columns.map((col) => {
      const name = col.name as keyof MpfsRvuRow;
      if (fixed[name] !== undefined) return fixed[name];
      if (!layout.index.has(name)) return 'NULL';
      return NUMERIC.has(name) ? `TRY_CAST(nullif(${at(name)}, '') AS DOUBLE)` : at(name);
    });
    const src = readCsvSql(file, { skip: layout.header.line, width, delim: ',', encoding: check.encoding });
    const names = [...columns.map((c) => quoteIdent(c.name)), 'version'].join(', ');
    // Rows outside the gate keep a NULL version, blank ones (parse skips them) a marker; CASE
    // evaluates the blank test only for rows the gate refused.
    const tag = `CASE WHEN ${ok.join(' AND ')} THEN ${quoteString(version)} WHEN concat(${cells.join(', ')}) = '' THEN ${quoteString(BLANK)} END`;
    let inserted: number;
    try {
      inserted = await count(`INSERT INTO ${table} (${names}) SELECT ${values.join(', ')}, ${tag} FROM ${src}`);
    } catch {
      return undo(); // a record DuckDB's reader refuses (extra fields, a broken quote)
    }
    inserted -= await count(`DELETE FROM ${table} WHERE version = ${quoteString(BLANK)}`);
    if (inserted === 0) return undo();
    const bad = await count(`SELECT count(*) FROM ${table} WHERE version IS NULL`);
    // DuckDB's first row must be the sample's first data record (same skip, same split).
    const head = (await run(`SELECT ${['hcpcs', 'modifier', 'description'].map(quoteIdent).join(', ')} FROM ${table} WHERE year = ${layout.rel.year} AND cf_variant = ${quoteString(layout.variant)} LIMIT 1`))[0];
    const expect = ['hcpcs', 'modifier', 'description'].map((f) => clean(first!.fields[layout.index.get(f as keyof MpfsRvuRow)!] ?? ''));
    if (bad > 0 || !head || expect.some((v, k) => v !== Object.values(head)[k])) return undo();
  }
  return { rows: await count(`SELECT count(*) FROM ${table}`), rejects: [] };
};
