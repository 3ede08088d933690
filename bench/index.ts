import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { table } from './lib.js';

/**
 * `npm run bench [area...]`: runs each area's benchmark and prints its figures next to a baseline
 * measured in the same run. Timings live here, never in tests.
 */
const AREAS = ['foundation', 'cpu', 'availability', 'remittance', 'claims', 'payment', 'medi_cal', 'ncci_ptp', 'ncci_validate', 'payers', 'drugs', 'nppes', 'concepts', 'b340', 'prior_auth', 'knowledge', 'writes', 'scaleout', 'scale', 'policy', 'agents', 'memory', 'mcp', 'cli'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const areas = wanted.length ? wanted : AREAS;
console.log(`rcm bench: node ${process.version}, ${(await import('node:os')).cpus().length} cpus, ${new Date().toISOString()}`);
for (const area of areas) {
  const file = resolve(import.meta.dirname, `${area}.ts`);
  if (!existsSync(file)) {
    console.log(`\n## ${area}: no benchmark (bench/${area}.ts missing)`);
    continue;
  }
  const mod = (await import(file)) as { run?: () => Promise<Record<string, string | number>[]> };
  if (typeof mod.run !== 'function') {
    console.log(`\n## ${area}: bench/${area}.ts exports no run()`);
    continue;
  }
  const t0 = Date.now();
  const rows = await mod.run();
  console.log(`\n## ${area} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n${table(rows)}`);
}
