import { randomBytes } from 'node:crypto';
import { IngestError } from '../_shared/issue.js';
import type { FileSample, SourceFile } from '../_shared/source.js';
import { toIsoDate } from '../_shared/values.js';
import { quoteIdent, quoteString } from '../../warehouse/sql_quote.js';
import type { NativeLoadResult } from '../types.js';
import { kindOfHeader, layoutOf, type FileKind, type Layout } from './layout.js';
import { splitCsv } from './parse.js';
import { ADDRESS_KEYS, AO_KEYS, MASKS, SWITCH_VALUES } from './rows.js';
import { NPPES_TABLES } from './schema.js';

// The native load: DuckDB's read_csv with the row rules of rows.ts in SQL.

type Run = (sql: string) => Promise<Record<string, unknown>[]>;

const NPI_GLOB = `'${'[0-9]'.repeat(10)}'`;
const DATE_GLOB = "'[0-9][0-9]/[0-9][0-9]/[0-9][0-9][0-9][0-9]'";
const list = (xs: string[]) => xs.map(quoteString).join(', ');

/** SQL over reader columns `c0..cN` for the fields of one layout. */
class Sql {
  readonly gate: string[] = [];
  /** ISO date expressions, checked for real days after the load. */
  readonly dates: string[] = [];
  constructor(private readonly layout: Layout) {}

  col(i: number | undefined): string {
    return i === undefined ? 'NULL::VARCHAR' : `nullif(c${i}, '')`;
  }
  text(name: string, m: Map<string, number> = this.layout.at): string {
    return this.col(m.get(name));
  }
  npi(): string {
    const c = `c${this.layout.at.get('npi')!}`;
    this.gate.push(`coalesce(${c}, '') GLOB ${NPI_GLOB}`);
    return c;
  }
  date(name: string): string {
    const c = this.text(name);
    if (!this.layout.at.has(name)) return c;
    this.gate.push(`(${c} IS NULL OR ${c} GLOB ${DATE_GLOB})`);
    return `(${c}[7:10] || '-' || ${c}[1:2] || '-' || ${c}[4:5])`;
  }
  masked(name: string, m: Map<string, number> = this.layout.at): { value: string; withheld: string } {
    const c = this.text(name, m);
    const cases = Object.entries(MASKS)
      .map(([mask, w]) => `WHEN ${quoteString(mask)} THEN ${quoteString(w)}`)
      .join(' ');
    return { value: `CASE WHEN ${c} IN (${list(Object.keys(MASKS))}) THEN NULL ELSE ${c} END`, withheld: `CASE ${c} ${cases} ELSE NULL END` };
  }
  switch(m: Map<string, number>): string {
    const c = this.text('primary', m);
    if (m.has('primary')) this.gate.push(`coalesce(${c}, '') IN (${list(SWITCH_VALUES)})`);
    return `coalesce(${c} = 'Y', false)`;
  }
  /** A JSON object of the prefixed fields, or NULL when all are empty (as rows.ts `group`). */
  group(prefix: string, keys: readonly string[]): string {
    const cols = keys.map((k) => this.text(`${prefix}${k}`));
    return `CASE WHEN coalesce(${cols.join(', ')}) IS NULL THEN NULL ELSE json_object(${keys.map((k, i) => `${quoteString(k)}, ${cols[i]}`).join(', ')})::VARCHAR END`;
  }
}

/** The provider table's SELECT list (in `NPPES_TABLES.provider` column order) and row gate. */
function providerSelect(layout: Layout): { values: string[]; gate: string; dates: string[] } {
  const s = new Sql(layout);
  const npi = s.npi();
  const dates: Record<string, string> = {};
  for (const d of ['enumeration_date', 'last_updated', 'deactivation_date', 'reactivation_date', 'certification_date']) dates[d] = s.date(d);
  const entity = s.text('entity_type');
  s.gate.push(`(${entity} IN ('1', '2') OR (${entity} IS NULL AND ${dates.deactivation_date} IS NOT NULL))`);
  const ein = s.masked('ein');
  const tin = s.masked('parent_organization_tin');
  const tax = layout.taxonomies.map((m) => {
    const lic = s.masked('license', m);
    return `struct_pack(code := ${s.text('code', m)}, license := ${lic.value}, license_withheld := ${lic.withheld}, license_state := ${s.text('license_state', m)}, primary := ${s.switch(m)}, "group" := ${s.text('group', m)})`;
  });
  const ids = layout.identifiers.map((m) => {
    const id = s.masked('identifier', m);
    return `struct_pack(present := ${s.text('identifier', m)} IS NOT NULL, identifier := ${id.value}, withheld := ${id.withheld}, type_code := ${s.text('type_code', m)}, state := ${s.text('state', m)}, issuer := ${s.text('issuer', m)})`;
  });
  const deact = dates.deactivation_date!;
  const react = dates.reactivation_date!;
  const v: Record<string, string> = {
    npi,
    entity_type: `CASE ${entity} WHEN '1' THEN 'individual' WHEN '2' THEN 'organization' END`,
    status: `CASE WHEN ${deact} IS NOT NULL AND (${react} IS NULL OR ${react} < ${deact}) THEN 'deactivated' ELSE 'active' END`,
    ein: ein.value,
    ein_withheld: ein.withheld,
    mailing_address: s.group('mailing_', ADDRESS_KEYS),
    practice_address: s.group('practice_', ADDRESS_KEYS),
    authorized_official: s.group('ao_', AO_KEYS),
    taxonomies: tax.length ? `to_json(list_filter([${tax.join(', ')}], x -> x.code IS NOT NULL))::VARCHAR` : `'[]'`,
    identifiers: ids.length ? `to_json(list_transform(list_filter([${ids.join(', ')}], x -> x.present), x -> struct_pack(identifier := x.identifier, withheld := x.withheld, type_code := x.type_code, state := x.state, issuer := x.issuer)))::VARCHAR` : `'[]'`,
    parent_organization_tin: tin.value,
    parent_organization_tin_withheld: tin.withheld,
    ...dates,
  };
  const values = NPPES_TABLES.provider.columns.map((c) => v[c.name] ?? s.text(c.name));
  return { values, gate: s.gate.join(' AND '), dates: Object.values(dates) };
}

/** Reader over one file: every field VARCHAR `c0..c{width-1}`, the header line skipped. */
function reader(file: SourceFile, width: number, rejects: string): string {
  const cols = Array.from({ length: width }, (_, k) => `'c${k}': 'VARCHAR'`).join(', ');
  return (
    `read_csv(${quoteString(file.path)}, delim=',', header=false, skip=1, quote='"', escape='"', auto_detect=false, strict_mode=true, ` +
    `null_padding=false, encoding='utf-8', store_rejects=true, rejects_table='${rejects}_t', rejects_scan='${rejects}_s', columns={${cols}})`
  );
}

const TABLE_OF: Record<FileKind, keyof typeof NPPES_TABLES> = { npidata: 'provider', pl: 'practice_location', othername: 'other_name' };

/**
 * Loads the NPPES files with DuckDB's own CSV reader, one streaming pass per file (the 9 GB data
 * file is never held in memory): the header mapped by name on the file's sample (as `parse`
 * does), every field read as VARCHAR, and the row rules of rows.ts in SQL. A row outside the
 * rules keeps a NULL version; a record DuckDB cannot split (wrong field count, broken quote,
 * invalid UTF-8) lands in its rejects table. Either way the load is undone and null returned, so
 * the JS parser reads the files and reports every rejected record with its file, line and field.
 */
export async function loadNppesNative(files: SourceFile[], samples: FileSample[], run: Run, _main: string, version: string): Promise<NativeLoadResult | null> {
  const count = async (sql: string) => Number(Object.values((await run(sql))[0] ?? {})[0] ?? 0);
  const undo = async () => {
    for (const t of Object.values(NPPES_TABLES)) await run(`DELETE FROM ${quoteIdent(t.name)}`);
    return null;
  };
  const tables: Record<string, number> = { provider: 0, practice_location: 0, other_name: 0 };
  for (const [i, file] of files.entries()) {
    const sample = samples.find((s) => s.name === file.name) ?? samples[i];
    const header = sample ? splitCsv(sample.lines[0] ?? '') : null;
    const kind = header && !header.open ? kindOfHeader(header.fields) : undefined;
    if (!header || !kind) throw new IngestError('no NPPES header row', file.name, 1);
    const layout = layoutOf(kind, header.fields, file.name);
    const target = quoteIdent(NPPES_TABLES[TABLE_OF[kind]].name);
    const tag = `nppes_${randomBytes(6).toString('hex')}`;
    const src = reader(file, layout.width, tag);
    const ver = quoteString(version);
    let inserted: number;
    try {
      if (kind === 'npidata') {
        const sel = providerSelect(layout);
        const names = [...NPPES_TABLES.provider.columns.map((c) => quoteIdent(c.name)), 'version'].join(', ');
        inserted = await count(`INSERT INTO ${target} (${names}) SELECT ${sel.values.join(', ')}, CASE WHEN ${sel.gate} THEN ${ver} END FROM ${src}`);
        const dates = await run(`SELECT DISTINCT unnest([${['enumeration_date', 'last_updated', 'deactivation_date', 'reactivation_date', 'certification_date'].map(quoteIdent).join(', ')}]) AS d FROM ${target} WHERE version IS NOT NULL`);
        if (dates.some((r) => typeof r.d === 'string' && toIsoDate(r.d) === null)) return undo();
      } else {
        const s = new Sql(layout);
        const npi = s.npi();
        const fields = kind === 'pl' ? [...ADDRESS_KEYS, 'telephone_extension'] : ['organization_name', 'type_code'];
        // Rows in file order (a table keeps insertion order), numbered per NPI as the parser does.
        await run(`CREATE TEMP TABLE ${tag} AS SELECT ${npi} AS npi, ${fields.map((f) => `${s.text(f)} AS ${quoteIdent(f)}`).join(', ')}, ${s.gate.join(' AND ')} AS ok FROM ${src}`);
        inserted = await count(
          `INSERT INTO ${target} (npi, ordinal, ${fields.map(quoteIdent).join(', ')}, version) ` +
            `SELECT npi, row_number() OVER (PARTITION BY npi ORDER BY rowid)::INTEGER, ${fields.map(quoteIdent).join(', ')}, CASE WHEN ok THEN ${ver} END FROM ${tag}`,
        );
        await run(`DROP TABLE ${tag}`);
      }
    } catch {
      return undo(); // DuckDB refused the file outright (not UTF-8, a broken quote it cannot recover)
    }
    const broken = await count(`SELECT count(*) FROM ${tag}_t`);
    await run(`DROP TABLE IF EXISTS ${tag}_t; DROP TABLE IF EXISTS ${tag}_s`);
    const bad = await count(`SELECT count(*) FROM ${target} WHERE version IS NULL`);
    if (broken > 0 || bad > 0 || (inserted === 0 && kind === 'npidata')) return undo();
    tables[TABLE_OF[kind]]! += inserted;
  }
  const rows = Object.values(tables).reduce((a, b) => a + b, 0);
  return { rows, rejects: [], tables };
}
