import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { columnsOf, createTableSql, table } from './table.js';
import { viewName } from '../../warehouse/manifest.js';

describe('row schemas declare the DuckDB columns', () => {
  it('derives each column type from the field schema, in key order, with descriptions', () => {
    const row = z.object({
      code: z.string().describe('HCPCS'),
      kind: z.enum(['a', 'b']),
      rate: z.number().nullable(),
      units: z.int(),
      year: z.number().int(),
      active: z.boolean().optional(),
      documents: z.array(z.string()),
      by_clearinghouse: z.record(z.string(), z.string()),
      big: z.number().meta({ duckdb: 'BIGINT' }),
    });
    expect(columnsOf(row)).toEqual([
      { name: 'code', type: 'VARCHAR', description: 'HCPCS' },
      { name: 'kind', type: 'VARCHAR' },
      { name: 'rate', type: 'DOUBLE' },
      { name: 'units', type: 'INTEGER' },
      { name: 'year', type: 'INTEGER' },
      { name: 'active', type: 'BOOLEAN' },
      { name: 'documents', type: 'JSON' },
      { name: 'by_clearinghouse', type: 'JSON' },
      { name: 'big', type: 'BIGINT' },
    ]);
    expect(createTableSql('t', columnsOf(z.object({ a: z.array(z.string()), b: z.int() })))).toBe('CREATE TABLE "t" ("a" VARCHAR, "b" INTEGER, "version" VARCHAR)');
  });

  it('refuses a key column the schema lacks, and names views', () => {
    expect(() => table('t', z.object({ a: z.string() }), ['b' as 'a'])).toThrow(/key column b/);
    expect(() => table('t', z.object({ a: z.string() }), ['a'], ['year' as 'a'])).toThrow(/metadata column year/);
    expect(viewName('payers', 'payers')).toBe('payers');
    expect(viewName('payers', 'filing_rules')).toBe('payers__filing_rules');
  });
});
