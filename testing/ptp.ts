import type { DuckDBValue } from '@duckdb/node-api';
import { PTP_COLUMNS, type PtpRow } from '../datasets/_ncci_ptp/row.js';
import type { DatasetVersion, Manifest } from '../warehouse/manifest.js';
import type { SnapshotReader } from '../warehouse/snapshot.js';

/**
 * The title and wrapped header lines of a CMS Medicare PTP part, as in `ccipra-v322r0-f1.txt`
 * (2 title lines, then `Column 1 / Column 2 / ...` wrapped over 4 lines). Tests and the bench
 * write generated parts under it.
 */
export const PTP_HEAD = [
  'CPT only copyright 2025 American Medical Association.  All rights reserved.\t\t\t\t\t\t',
  'Column1/Column2 Edits\t\t\t\t\t\t',
  'Column 1\tColumn 2\t*=in existence\tEffective\tDeletion\tModifier\tPTP Edit Rationale',
  '\t\tprior to 1996\tDate\tDate\t0=not allowed\t',
  '\t\t\t\t*=no data\t1=allowed\t',
  '\t\t\t\t\t9=not applicable\t',
];

/** `CREATE TABLE` for a PTP table plus its `version` column, as the native loader fills it. */
export const ptpTableSql = (name: string): string =>
  `CREATE TABLE ${name} (${[...PTP_COLUMNS, { name: 'version', type: 'VARCHAR' }].map((c) => `"${c.name}" ${c.type}`).join(', ')})`;

/** A published PTP row with a fixed rationale (modifier indicator '1' unless given). */
export const ptpRow = (c1: string, c2: string, eff: string, del: string | null, mod: PtpRow['modifier_indicator'] = '1'): PtpRow => ({
  column1: c1,
  column2: c2,
  in_existence_prior_1996: false,
  effective_date: eff,
  deletion_date: del,
  modifier_indicator: mod,
  rationale: 'Mutually exclusive procedures',
});

/** Loaded versions of PTP datasets, for `fakePtpSnapshot`. */
export type FakePtpData = Record<string, { version: string; effective: string; rows: PtpRow[] }[]>;

/** An in-memory SnapshotReader that answers the two SQL shapes the PTP queries use. */
export function fakePtpSnapshot(data: FakePtpData) {
  const queries: string[] = [];
  const memos = new Map<string, Promise<unknown>>();
  const versions = (d: string): DatasetVersion[] =>
    (data[d] ?? []).map((v) => ({ dataset: d, version: v.version, effective_date: v.effective, file: '', source_files: [], rows: v.rows.length, rejects: 0, loaded_at: '2026-01-01T00:00:00Z' }));
  const snap: SnapshotReader = {
    id: 'fake',
    manifest: { id: 'fake' } as Manifest,
    async all<T>(sql: string, params: DuckDBValue[] = []): Promise<T[]> {
      queries.push(sql);
      const d = /FROM "(\w+)"/.exec(sql)![1]!;
      const all = (data[d] ?? []).flatMap((v) => v.rows.map((r) => ({ ...r, version: v.version })));
      if (/SELECT DISTINCT column1/.test(sql)) return [...new Set(all.map((r) => r.column1))].map((column1) => ({ column1 })) as T[];
      return all.filter((r) => r.column1 === params[0]) as T[];
    },
    memo<T>(key: string, compute: () => Promise<T>) {
      if (!memos.has(key)) memos.set(key, compute());
      return memos.get(key) as Promise<T>;
    },
    versions,
    has: (d) => versions(d).length > 0,
  };
  return { snap, queries };
}

/** Two practitioner quarters (32.1, 32.2) with a pair deleted and re-added, for the fake snapshot. */
export const TWO_PTP_QUARTERS: FakePtpData = {
  ncci_ptp_prac: [
    { version: '32.1', effective: '2026-04-01', rows: [ptpRow('11042', '97597', '2011-01-01', null), ptpRow('93000', '93010', '1996-01-01', null, '0')] },
    {
      version: '32.2',
      effective: '2026-07-01',
      rows: [
        ptpRow('11042', '97597', '2011-01-01', '2026-06-30'),
        // Deleted and re-added with a new effective date: two rows for one pair.
        ptpRow('11042', '97597', '2026-07-01', null, '0'),
        ptpRow('93000', '93010', '1996-01-01', null, '0'),
      ],
    },
  ],
};
