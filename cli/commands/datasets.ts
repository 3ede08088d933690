import type { Command } from 'commander';
import { DATASETS } from '../../datasets/registry.js';
import type { CliContext } from '../context.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('datasets')
    .description('List registered datasets, the formats each accepts, their tables and key columns')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) => {
      const rows = DATASETS.map((d) => ({
        id: d.id,
        title: d.title,
        publisher: d.publisher,
        formats: d.formats,
        key: d.key,
        columns: d.columns.map((c) => c.name),
        tables: d.tables.map((t) => ({ name: t.name, key: t.key, columns: t.columns.map((c) => c.name) })),
      }));
      if (o.json) return ctx.json(rows);
      for (const r of rows) {
        const tables = r.tables.length > 1 ? `\n  tables: ${r.tables.map((t) => `${t.name} (key ${t.key.join(', ')})`).join('; ')}` : '';
        ctx.io.stdout(`${r.id}\n  ${r.title} (${r.publisher})\n  formats: ${r.formats.join('; ')}\n  key: ${r.key.join(', ')}${tables}\n`);
      }
    });
}
