import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { IngestError } from '../_shared/issue.js';
import { fileDuckdbEncoding } from '../_shared/native_csv.js';
import type { FileSample, SourceFile } from '../_shared/source.js';
import { toIsoDate } from '../_shared/values.js';
import { quoteIdent, quoteString } from '../../warehouse/sql_quote.js';
import type { NativeLoadResult } from '../types.js';
import { isEmptyLine, layoutWidth, locatePtpLayout, type PtpLayout } from './layout.js';
import type { PtpFlavor } from './names.js';
import { parsePtpFile, toPtpRow } from './parse.js';
import { orderParts } from './parts.js';

// The native load: DuckDB's read_csv with the row rules of parse.ts in SQL.

/**
 * A part cut short ends inside a record: no final line break and a last line that fails the row
 * rules. Checked before the native load (DuckDB would read the partial line as a short row).
 */
async function refuseTruncated(file: SourceFile, layout: PtpLayout, program: 'medicare' | 'medicaid'): Promise<void> {
  if (file.size === 0) return;
  const fh = await open(file.path, 'r');
  try {
    const n = Math.min(file.size, 4096);
    const buf = Buffer.alloc(n);
    await fh.read(buf, 0, n, file.size - n);
    const tail = buf.toString('latin1');
    if (tail.endsWith('\n') || tail.endsWith('\r')) return;
    const lastLine = tail.slice(tail.lastIndexOf('\n') + 1);
    const fields = lastLine.split('\t');
    if (isEmptyLine(fields) || !toPtpRow(fields, layout, 0, program).issues) return;
    throw new IngestError('the file is truncated: it ends inside a record (no final line break, and the last line does not parse)', file.name);
  } finally {
    await fh.close();
  }
}

const GLOB_CODE = "'[A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9]'";
const GLOB_DATE = "'[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'";
const sqlIso = (x: string) => `(${x}[1:4] || '-' || ${x}[5:6] || '-' || ${x}[7:8])`;

/**
 * The SELECT list and validity test of one layout, over reader columns `c0..cN` (an empty
 * field reads as NULL). Same rules as `toPtpRow`, except that dates are checked for shape here
 * and for being real calendar days afterwards, on the few distinct values (cheaper than a
 * per-row `strptime` on millions of rows).
 */
function nativeSelect(layout: PtpLayout, program: 'medicare' | 'medicaid'): { values: string[]; valid: string } {
  const c = (k: number) => `c${k}`;
  const medicare = program === 'medicare';
  const valid: string[] = [`${c(layout.col1)} GLOB ${GLOB_CODE}`, `${c(layout.col2)} GLOB ${GLOB_CODE}`, `${c(layout.modifier)} IN ('0', '1', '9')`];
  if (layout.prior1996 !== undefined) valid.push(`(${c(layout.prior1996)} IS NULL OR ${c(layout.prior1996)} = '*')`);
  let eff = 'NULL';
  if (layout.effective !== undefined) {
    const e = c(layout.effective);
    valid.push(medicare ? `${e} GLOB ${GLOB_DATE}` : `(${e} IS NULL OR ${e} GLOB ${GLOB_DATE})`);
    eff = sqlIso(e);
  } else if (medicare) valid.push('false');
  let del = 'NULL';
  if (layout.deletion !== undefined) {
    const d = c(layout.deletion);
    valid.push(medicare ? `(${d} = '*' OR ${d} GLOB ${GLOB_DATE})` : `(${d} IS NULL OR ${d} = '*' OR ${d} GLOB ${GLOB_DATE})`);
    del = `CASE WHEN ${d} = '*' THEN NULL ELSE ${sqlIso(d)} END`;
  } else if (medicare) valid.push('false');
  return {
    values: [
      c(layout.col1),
      c(layout.col2),
      layout.prior1996 === undefined ? 'false' : `${c(layout.prior1996)} IS NOT NULL`,
      eff,
      del,
      c(layout.modifier),
      layout.rationale === undefined ? "''" : `coalesce(${c(layout.rationale)}, '')`,
    ],
    valid: valid.join(' AND '),
  };
}

/**
 * Loads PTP parts with DuckDB's own CSV reader: every field VARCHAR, header skipped by the line
 * count found by content, casts and the row rules of `toPtpRow` in SQL, one pass per part (in
 * part order, so the table stays sorted by column 1 for zone-map lookups). Rows failing a rule
 * are inserted with a NULL version, structurally broken lines land in DuckDB's rejects table,
 * and dates that are not real days (`20260230`) are found on the distinct values and flagged
 * too. Only when anything was flagged does the JS parser re-read the parts to report each
 * rejected line with its issues; the flagged rows are then deleted and both counts must agree.
 */
export async function loadPtpNative(
  flavor: PtpFlavor,
  files: SourceFile[],
  samples: FileSample[],
  run: (sql: string) => Promise<Record<string, unknown>[]>,
  table: string,
  version: string,
): Promise<NativeLoadResult | null> {
  const target = table.startsWith('"') ? table : quoteIdent(table);
  const count = async (sql: string) => Number(Object.values((await run(sql))[0] ?? {})[0] ?? 0);
  const ordered = orderParts(files, flavor);
  let inserted = 0;
  let broken = 0;
  for (const file of ordered) {
    const sample = samples.find((s) => s.name === file.name) ?? samples[files.indexOf(file)];
    if (!sample) throw new IngestError('no sample for file', file.name);
    const layout = locatePtpLayout(sample.lines, file.name, flavor.program);
    await refuseTruncated(file, layout, flavor.program);
    const cols = Array.from({ length: layoutWidth(layout) }, (_, k) => `'c${k}': 'VARCHAR'`).join(', ');
    // CP1252 dashes and quotes (0x80-0x9F) only the row parser decodes: it reads such a release.
    const encoding = await fileDuckdbEncoding(file);
    if (!encoding) {
      await run(`DELETE FROM ${target}`);
      return null;
    }
    // DuckDB's rejects tables for this part, under names no other load on the connection uses.
    const tag = randomBytes(6).toString('hex');
    const rj = `ptp_rejects_${tag}`;
    const rs = `ptp_scans_${tag}`;
    const src =
      `read_csv(${quoteString(file.path)}, delim='\t', header=false, skip=${layout.skip}, quote='', escape='', auto_detect=false, ` +
      `null_padding=true, store_rejects=true, rejects_table='${rj}', rejects_scan='${rs}', encoding='${encoding}', columns={${cols}})`;
    const sel = nativeSelect(layout, flavor.program);
    inserted += await count(
      `INSERT INTO ${target} (column1, column2, in_existence_prior_1996, effective_date, deletion_date, modifier_indicator, rationale, version) ` +
        `SELECT ${sel.values.join(', ')}, CASE WHEN ${sel.valid} THEN ${quoteString(version)} ELSE NULL END FROM ${src}`,
    );
    broken += await count(`SELECT count(*) FROM ${rj}`);
    await run(`DROP TABLE IF EXISTS ${rj}; DROP TABLE IF EXISTS ${rs}`);
  }
  const dates = await run(
    `SELECT DISTINCT effective_date AS d FROM ${target} WHERE version IS NOT NULL UNION SELECT DISTINCT deletion_date FROM ${target} WHERE version IS NOT NULL`,
  );
  const badDates = dates.map((r) => r.d).filter((d): d is string => typeof d === 'string' && toIsoDate(d) === null);
  if (badDates.length) {
    const list = badDates.map(quoteString).join(', ');
    await run(`UPDATE ${target} SET version = NULL WHERE effective_date IN (${list}) OR deletion_date IN (${list})`);
  }
  const flagged = await count(`SELECT count(*) FROM ${target} WHERE version IS NULL`);
  if (flagged + broken === 0) return { rows: inserted, rejects: [] };

  // The rare path: exact lines and issues from the JS parser.
  const rejects: NativeLoadResult['rejects'] = [];
  let emptyRows = 0;
  for (const file of ordered) {
    for await (const item of parsePtpFile(flavor, file, { onBytes: () => {} }, true)) {
      if (item === 'empty') emptyRows++;
      else if (item.issues) rejects.push({ line: item.line, issues: item.issues.map((i) => ({ ...i, ctx: { ...i.ctx, file: file.name } })) });
    }
  }
  await run(`DELETE FROM ${target} WHERE version IS NULL`);
  if (rejects.length + emptyRows !== flagged + broken) {
    throw new IngestError(
      `native load disagrees with validation: ${flagged + broken} lines failed in DuckDB, ${rejects.length} in the row check (+${emptyRows} empty)`,
      ordered.map((f) => f.name).join(', '),
    );
  }
  return { rows: inserted - flagged, rejects };
}
