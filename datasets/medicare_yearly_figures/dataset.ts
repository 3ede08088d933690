import type { Node } from 'yaml';
import { z } from 'zod';
import { curatedVersion, readCuratedDocument, requireCurated, sectionRows } from '../_shared/curated.js';
import { IngestError } from '../_shared/issue.js';
import type { SourceFile } from '../_shared/source.js';
import { table } from '../_shared/table.js';
import { CitationSchema } from '../payers/schema.js';
import { defineMultiTableDataset, type ParsedItem } from '../types.js';

/**
 * The yearly Medicare figures no loaded publisher file carries, each cited: the physician fee
 * schedule's conversion factors (when the RVU release does not print them), the Part B deductible,
 * the inpatient deductible (the OPPS copayment cap), the Part B coinsurance, the sequestration
 * reduction, the colorectal-screening (modifier PT) coinsurance of section 1833(dd) of the Act; and
 * the code lists of the year (preventive services without cost sharing). January is an ingest of
 * the new year's document, and every answer that reads a figure names this dataset's version.
 */
export const YEARLY_FIGURES = {
  conversion_factor_qpp: 'dollars_per_rvu',
  conversion_factor_non_qpp: 'dollars_per_rvu',
  part_b_deductible: 'dollars',
  inpatient_deductible: 'dollars',
  part_b_coinsurance_percent: 'percent',
  sequestration_percent: 'percent',
  colorectal_pt_coinsurance_percent: 'percent',
} as const;
export type YearlyFigure = keyof typeof YEARLY_FIGURES;

export const YEARLY_CODE_LISTS = ['preventive_no_cost_sharing'] as const;
export type YearlyCodeList = (typeof YEARLY_CODE_LISTS)[number];

const Year = z.int().min(2000).max(2100);

export const YearlyFigureRowSchema = z.object({
  year: Year.describe('the calendar year the figure applies to (from January 1)'),
  figure: z.enum(Object.keys(YEARLY_FIGURES) as [YearlyFigure, ...YearlyFigure[]]),
  value: z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, 'a plain decimal (exact: no exponent, no thousands separator)').describe('the figure as the source prints it, read as an exact decimal'),
  citation: CitationSchema,
});
export type YearlyFigureRow = z.infer<typeof YearlyFigureRowSchema>;

export const YearlyCodeRowSchema = z.object({
  year: Year,
  list: z.enum(YEARLY_CODE_LISTS),
  code: z.string().regex(/^[A-Z0-9]{5}$/, 'a HCPCS or CPT code'),
  description: z.string().min(3),
  citation: CitationSchema,
});

const ID = 'medicare_yearly_figures';
export const FIGURES_TABLE = table(ID, YearlyFigureRowSchema, ['year', 'figure']);
export const CODE_LISTS_TABLE = table('code_lists', YearlyCodeRowSchema, ['year', 'list', 'code']);
const KIND = /^\s*"?kind"?\s*:\s*"?medicare_yearly_figures"?\s*,?\s*$/m;
const CITATION_MSG = 'every figure and code needs a citation {title, url, retrieved}';

/**
 * Source format (README): one YAML or JSON document per year, `kind: medicare_yearly_figures`,
 * `curated: YYYY-MM-DD`, `year`, `figures: [{figure, value, citation}]`, `code_lists: [{list,
 * code, description, citation}]`. The release version is the latest `curated` date of its files.
 */
export const medicareYearlyFigures = defineMultiTableDataset({
  id: ID,
  title: 'Medicare yearly figures: conversion factors, deductibles, coinsurance, sequestration, preventive codes (curated, cited)',
  publisher: 'curated from CMS fact sheets and final rules and the Social Security Act (cited per row)',
  formats: ['<year>.yaml or .json (kind: medicare_yearly_figures), one per year'],
  tables: [FIGURES_TABLE, CODE_LISTS_TABLE],
  detect: (s) => KIND.test(s.text.slice(0, 4096)),
  version: curatedVersion,
  async *parse(file: SourceFile): AsyncIterable<ParsedItem<Record<string, unknown>>> {
    const doc = await readCuratedDocument(file, '`kind: medicare_yearly_figures`');
    requireCurated(doc, file);
    for (const k of Object.keys(doc.data)) {
      if (!['kind', 'curated', 'year', 'figures', 'code_lists'].includes(k)) throw new IngestError(`unknown section \`${k}\` (year, figures, code_lists)`, file.name, doc.lineOf(doc.root.get(k, true) as Node));
    }
    const year = doc.data.year;
    if (typeof year !== 'number' || !Number.isInteger(year)) throw new IngestError('`year: YYYY` is required (the calendar year of the figures)', file.name, 1);
    // Every row takes the document's year; a row naming another year is refused (a file is one year's).
    const owner = { year } as unknown as Record<string, string>;
    yield* sectionRows(doc, file, 'figures', FIGURES_TABLE, CITATION_MSG, owner);
    yield* sectionRows(doc, file, 'code_lists', CODE_LISTS_TABLE, CITATION_MSG, owner);
  },
});
