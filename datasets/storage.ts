import { quoteIdent } from '../warehouse/sql_quote.js';
import type { StorageSpec } from '../warehouse/storage.js';
import { COLUMN1_KEY_SQL, PAIRS_SIDECAR, pairIndexSql } from './_ncci_ptp/pair_index.js';
import { NDC11_SQL, packageRowsSql, productRowsSql } from './fda_ndc/directory_sql.js';
import { NPPES_TABLES } from './nppes/schema.js';
import type { DatasetId } from './registry.js';
import { ATOM_KEY_SQL, UMLS_ATOM_FIELDS, UMLS_WORD_FIELDS } from './umls_concepts/dataset.js';
import { WORD_SUMMARY } from './umls_concepts/word_summary.js';

/**
 * How each dataset's version files are stored, one table for all (`StorageSpec`,
 * `warehouse/storage.ts`): the DuckDB indexes and row group size inside a version file and the
 * sidecars beside it. A dataset's declaration says what its data is; this says how it is kept, and
 * ingest writes what it says (`ingest/pipeline.ts`). A dataset not listed is its tables alone.
 * Its readers find what is written here by the same names and SQL builders (`findNpi`,
 * `server/drugs/service.ts`, `server/concepts/search.ts`, `buildPtpIndex`), and answer from DuckDB
 * for a version written without it.
 */

/** Products, and packages, a pass of the FDA range sidecars' writing holds (about 30 MB of their JSON text). */
const PRODUCTS_A_PASS = 16_384;
const PACKAGES_A_PASS = 32_768;

/**
 * A PTP dataset's pair index, the one a server holds (`pair_index.ts`): computed once at ingest
 * instead of at every start, in passes of about a million edits by column 1 (one sort of a 4
 * M-edit quarter held about 250 MB).
 */
const ptpPairs = (id: string): StorageSpec => ({
  columnFiles: [{ name: PAIRS_SIDECAR, sql: (range) => pairIndexSql(quoteIdent(id), range), passes: { table: quoteIdent(id), key: COLUMN1_KEY_SQL, rows: 1 << 20 } }],
});

export const STORAGE: { readonly [Id in DatasetId]?: StorageSpec } = {
  nppes: {
    // An NPI is looked up in all three tables at once (`findNpi` without a record sidecar): each finds its rows by index.
    indexes: [NPPES_TABLES.provider, NPPES_TABLES.practice_location, NPPES_TABLES.other_name].map((t) => ({ table: t.name, columns: ['npi'] })),
    // One record per NPI beside the version file, what `findNpi` answers, read without DuckDB: its
    // provider row with its practice locations and other names, each list in ordinal order.
    records: {
      key: 'CAST(npi AS BIGINT)',
      main: { name: 'provider', table: NPPES_TABLES.provider.name },
      lists: [
        { name: 'practice_locations', table: NPPES_TABLES.practice_location.name, order: 'ordinal' },
        { name: 'other_names', table: NPPES_TABLES.other_name.name, order: 'ordinal' },
      ],
    },
  },
  umls_concepts: {
    // A word prefix is a range over the sorted word table: finer zone maps, fewer rows read (16,384
    // measured about 1.6x faster than DuckDB's 122,880, the file 12% larger).
    rowGroupSize: 16_384,
    ranges: [
      // The word table is stored in word order (its `finalize`): copied as it is, no sort.
      // Each block summarised (`word_summary.ts`): a one-word search counts and bounds from the index.
      { name: 'words', columns: [...UMLS_WORD_FIELDS], from: 'word', order: null, blockRows: 128, deflate: true, summary: WORD_SUMMARY },
      // One row per atom: its code row (every atom has exactly one).
      { name: 'atoms', columns: [ATOM_KEY_SQL, ...UMLS_ATOM_FIELDS.slice(1)], from: `word WHERE starts_with(word, '#')`, order: 'ord', blockRows: 32, deflate: false },
    ],
  },
  // The drug directory's rows (`server/drugs/service.ts`): products by number, read whole at mount;
  // packages by 11 digits, one block read per lookup (stored blocks: zlib's setup per call cost more
  // than the read). Each is written in passes of a few tens of thousands of rows (their JSON text,
  // sorted and joined, held 200-300 MB at 111,502 products in one pass).
  fda_ndc: {
    ranges: [
      {
        name: 'products',
        columns: ['k', 'row', 'ingredients'],
        from: (range) => `(${productRowsSql('product', 'ingredient', range)}) x`,
        passes: { table: 'product', key: 'product_id', rows: PRODUCTS_A_PASS },
        order: 'k',
        blockRows: 64,
        deflate: true,
      },
      {
        name: 'packages',
        columns: ['ndc11', 'row', 'product'],
        from: (range) => `(${packageRowsSql('package', 'product', range)}) x`,
        passes: { table: 'package', key: NDC11_SQL, rows: PACKAGES_A_PASS },
        order: 'ndc11, row',
        blockRows: 16,
        deflate: false,
      },
    ],
  },
  ncci_ptp_prac: ptpPairs('ncci_ptp_prac'),
  ncci_ptp_hosp: ptpPairs('ncci_ptp_hosp'),
  medicaid_ptp_prac: ptpPairs('medicaid_ptp_prac'),
  medicaid_ptp_hosp: ptpPairs('medicaid_ptp_hosp'),
};

/** How `dataset`'s versions are stored: its `STORAGE` entry, or nothing beyond its tables. */
export const storageOf = (dataset: string): StorageSpec => (STORAGE as Readonly<Record<string, StorageSpec | undefined>>)[dataset] ?? {};
