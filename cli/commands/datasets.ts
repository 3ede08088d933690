import { DATASETS } from '../../datasets/registry.js';
import { printJson, type CliIO } from '../io.js';

/** `rcm datasets`: the registry, its formats, tables and key columns (no settings, no data dir). */
export function datasets(io: CliIO, o: { json?: boolean }): void {
  const rows = DATASETS.map((d) => ({
    id: d.id,
    title: d.title,
    publisher: d.publisher,
    formats: d.formats,
    key: d.key,
    columns: d.columns.map((c) => c.name),
    tables: d.tables.map((t) => ({ name: t.name, key: t.key, columns: t.columns.map((c) => c.name) })),
  }));
  if (o.json) return printJson(io, rows);
  for (const r of rows) {
    const tables = r.tables.length > 1 ? `\n  tables: ${r.tables.map((t) => `${t.name} (key ${t.key.join(', ')})`).join('; ')}` : '';
    io.stdout(`${r.id}\n  ${r.title} (${r.publisher})\n  formats: ${r.formats.join('; ')}\n  key: ${r.key.join(', ')}${tables}\n`);
  }
}
