import type { FileSample } from '../_shared/source.js';
import type { DeltaSpec } from '../types.js';
import { FULL_FILE_FROM, parseNppesName } from './layout.js';

const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;

/**
 * NPPES weekly files as deltas. The Readme (1.3): a weekly file "will contain only the new
 * FOIA-disclosable NPPES provider data since the last weekly or monthly file", one whole row per
 * NPI it carries (a deactivated NPI: its number and deactivation date). So each NPI of the weekly
 * data file replaces the base's row, and its practice locations and other names are the weekly
 * reference files' rows for it (none when they list none); every other NPI keeps the base's rows.
 */
export const NPPES_DELTA: DeltaSpec = {
  rangeOf(samples: FileSample[]) {
    const n = samples.map((s) => parseNppesName(s.name)).find((x) => x !== undefined);
    return n && n.from !== FULL_FILE_FROM ? { from: iso(n.from), to: iso(n.to) } : undefined;
  },
  async fold(run, base, version) {
    const v = `'${version.replace(/'/g, "''")}'`;
    const [r] = await run(
      `SELECT count(*)::INTEGER AS n FROM provider d JOIN ${base}.provider b USING (npi) WHERE d.status = 'deactivated' AND b.status = 'active'`,
    );
    // NPIs whose reference rows the delta decides: those of its data file and of its reference files.
    await run(`CREATE TEMP TABLE delta_npi AS SELECT npi FROM provider UNION SELECT npi FROM practice_location UNION SELECT npi FROM other_name`);
    for (const t of ['practice_location', 'other_name']) {
      await run(`INSERT INTO ${t} BY NAME SELECT * REPLACE (${v} AS version) FROM ${base}.${t} b WHERE b.npi NOT IN (SELECT npi FROM delta_npi)`);
    }
    await run(`INSERT INTO provider BY NAME SELECT * REPLACE (${v} AS version) FROM ${base}.provider b WHERE b.npi NOT IN (SELECT npi FROM provider)`);
    await run('DROP TABLE delta_npi');
    return { explicitRemovals: Number(r!.n) };
  },
};
