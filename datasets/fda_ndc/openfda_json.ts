import { z } from 'zod';
import { IngestError } from '../_shared/issue.js';
import { readPieces, type FileSample, type SourceFile } from '../_shared/source.js';
import { toIsoDate } from '../_shared/values.js';
import type { Issue } from '../../warehouse/errors.js';
import type { ParseContext, ParsedItem } from '../types.js';
import { isPackageNdc, isProductNdc, segmentsOf } from '../_shared/ndc.js';
import type { IngredientRow, NdcTable, PackageRow, ProductRow } from './schema.js';

/**
 * The openFDA `drug-ndc` bulk export (`drug-ndc-0001-of-0001.json.zip`): `{meta, results[]}`, one
 * result per product with its `packaging[]`, `active_ingredients[]` and the optional `openfda`
 * annotation (arrays: `rxcui[]`, `unii[]`, `manufacturer_name[]`; `{}` or absent when openFDA could
 * not annotate, as for Merthiolate 0395-9122 in the 2020-05-01 export). Key order varies.
 */

/** `YYYYMMDD` as openFDA writes dates. */
const ymd = z.string().regex(/^\d{8}$/, 'a date as YYYYMMDD').refine((s) => toIsoDate(s) !== null, 'not a real calendar date');
const strings = z.array(z.string());

const OpenFdaProductSchema = z.looseObject({
  product_ndc: z.string().refine(isProductNdc, 'not a product NDC (labeler-product, 4-4, 5-3 or 5-4 digits)'),
  product_id: z.string().min(1),
  spl_id: z.string().min(1),
  product_type: z.string().optional(),
  brand_name: z.string().optional(),
  generic_name: z.string().optional(),
  dosage_form: z.string().optional(),
  route: strings.optional(),
  marketing_start_date: ymd.optional(),
  marketing_end_date: ymd.optional(),
  marketing_category: z.string().optional(),
  application_number: z.string().optional(),
  labeler_name: z.string().optional(),
  pharm_class: strings.optional(),
  dea_schedule: z.string().optional(),
  listing_expiration_date: ymd.optional(),
  finished: z.boolean(),
  active_ingredients: z.array(z.looseObject({ name: z.string().min(1), strength: z.string().optional() })).optional(),
  packaging: z
    .array(
      z.looseObject({
        package_ndc: z.string().refine(isPackageNdc, 'not a package NDC (4-4-2, 5-3-2 or 5-4-1 digits)'),
        description: z.string().optional(),
        marketing_start_date: ymd.optional(),
        marketing_end_date: ymd.optional(),
        sample: z.boolean().optional(),
      }),
    )
    .optional(),
  openfda: z.looseObject({ manufacturer_name: strings.optional(), rxcui: strings.optional(), unii: strings.optional() }).optional(),
});
type OpenFdaProduct = z.infer<typeof OpenFdaProductSchema>;

/** True for a sample of the export: a JSON object whose results carry `product_ndc`. */
export const isOpenFdaSample = (s: FileSample): boolean => s.text.trimStart().startsWith('{') && /"product_ndc"\s*:/.test(s.text);

/** The export's `meta.last_updated` (`2020-05-01`), the version it is. */
export function lastUpdatedOf(s: FileSample): string | undefined {
  const m = /"last_updated"\s*:\s*"(\d{4}-\d{2}-\d{2})"/.exec(s.text);
  return m?.[1];
}

/**
 * The elements of the top-level `results` array, each as its text and the line it starts on, so a
 * reject names the line an editor shows (JSON.parse of the whole file would lose it). A small
 * scanner over strings and nesting, fed the file's text a piece at a time: it holds only the
 * element being read (a whole export is about 250 MB). The elements themselves go through
 * JSON.parse.
 */
export async function* resultElements(pieces: AsyncIterable<string>, fileName: string): AsyncGenerator<{ line: number; json: string }> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let line = 1;
  let key = '';
  /** The top-level key being read, from earlier pieces (null: not in one). */
  let keyText: string | null = null;
  let inResults = false;
  let sawResults = false;
  /** The element being read, from earlier pieces (null: not in one). */
  let elem: string | null = null;
  let elemLine = 0;
  for await (const text of pieces) {
    let keyStart = keyText === null ? -1 : 0;
    let elemStart = elem === null ? -1 : 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true;
        else if (c === 34) {
          inString = false;
          if (keyText !== null) {
            key = keyText + text.slice(keyStart, i);
            keyText = null;
            keyStart = -1;
          }
        }
        continue;
      }
      if (c === 34) {
        inString = true;
        if (depth === 1 && !inResults) {
          keyText = '';
          keyStart = i + 1;
        }
      } else if (c === 123 || c === 91) {
        if (depth === 1 && c === 91 && key === 'results') {
          inResults = true;
          sawResults = true;
        } else if (inResults && depth === 2) {
          elem = '';
          elemStart = i;
          elemLine = line;
        }
        depth++;
      } else if (c === 125 || c === 93) {
        depth--;
        if (inResults && depth === 2 && elem !== null) {
          yield { line: elemLine, json: elem + text.slice(elemStart, i + 1) };
          elem = null;
          elemStart = -1;
        } else if (inResults && depth === 1) inResults = false;
        if (depth < 0) throw new IngestError('malformed JSON: a closing bracket without its opening one', fileName, line);
      } else if (c === 44 && depth === 1) key = '';
    }
    if (keyText !== null) keyText += text.slice(keyStart);
    if (elem !== null) elem += text.slice(elemStart);
  }
  if (depth !== 0 || inString) throw new IngestError('the file is truncated or malformed: the JSON ends inside an object or string', fileName, line);
  if (!sawResults) throw new IngestError('no top-level "results" array (expected the openFDA drug-ndc export)', fileName, 1);
}

const joined = (xs: string[] | undefined): string | null => (xs && xs.length ? xs.join('; ') : null);
const iso = (s: string | undefined): string | null => (s ? toIsoDate(s) : null);

/** `40 mg/1` -> `40`, `mg/1` (openFDA joins them with one space; `.5 mg/1` keeps its leading dot). */
function splitStrength(s: string | undefined): { value: string | null; unit: string | null } {
  if (!s) return { value: null, unit: null };
  const at = s.indexOf(' ');
  return at < 0 ? { value: s, unit: null } : { value: s.slice(0, at), unit: s.slice(at + 1) };
}

type Item = ParsedItem<ProductRow | PackageRow | IngredientRow> & { table?: NdcTable };

/** The rows of one openFDA product: the product, its packages and its ingredients. */
function rowsOf(p: OpenFdaProduct, line: number): Item[] {
  const product: ProductRow = {
    product_id: p.product_id,
    product_ndc: p.product_ndc,
    ndc_segments: segmentsOf(p.product_ndc)!,
    spl_id: p.spl_id,
    product_type: p.product_type ?? null,
    brand_name: p.brand_name ?? null,
    brand_name_suffix: null,
    generic_name: p.generic_name ?? null,
    dosage_form: p.dosage_form ?? null,
    route: joined(p.route),
    marketing_start_date: iso(p.marketing_start_date),
    marketing_end_date: iso(p.marketing_end_date),
    marketing_category: p.marketing_category ?? null,
    application_number: p.application_number ?? null,
    labeler_name: p.labeler_name ?? null,
    pharm_classes: p.pharm_class && p.pharm_class.length ? p.pharm_class.join(',') : null,
    dea_schedule: p.dea_schedule ?? null,
    ndc_exclude_flag: null,
    listing_expiration_date: iso(p.listing_expiration_date),
    finished: p.finished,
    openfda_manufacturer_name: joined(p.openfda?.manufacturer_name),
    openfda_rxcui: joined(p.openfda?.rxcui),
    openfda_unii: joined(p.openfda?.unii),
    source: 'openfda',
  };
  const items: Item[] = [{ line, table: 'product', row: product }];
  for (const k of p.packaging ?? []) {
    const pkg: PackageRow = {
      package_ndc: k.package_ndc,
      ndc_segments: segmentsOf(k.package_ndc)!,
      product_id: p.product_id,
      product_ndc: p.product_ndc,
      description: k.description ?? null,
      marketing_start_date: iso(k.marketing_start_date),
      marketing_end_date: iso(k.marketing_end_date),
      sample: k.sample ?? null,
      ndc_exclude_flag: null,
      source: 'openfda',
    };
    items.push({ line, table: 'package', row: pkg });
  }
  (p.active_ingredients ?? []).forEach((a, i) => {
    const { value, unit } = splitStrength(a.strength);
    const ing: IngredientRow = { product_id: p.product_id, product_ndc: p.product_ndc, ingredient_ordinal: i + 1, ingredient_name: a.name, ingredient_strength: a.strength ?? null, strength_value: value, strength_unit: unit, source: 'openfda' };
    items.push({ line, table: 'ingredient', row: ing });
  });
  return items;
}

/** Checks a product's packages belong to it (the package NDC starts with the product NDC). */
function packageIssues(p: OpenFdaProduct, line: number): Issue[] {
  return (p.packaging ?? []).flatMap((k, i) =>
    k.package_ndc.startsWith(`${p.product_ndc}-`) ? [] : [{ loc: ['row', line, `packaging.${i}.package_ndc`], msg: `not a package of product ${p.product_ndc}`, type: 'value_error', input: k.package_ndc }],
  );
}

/** Reads the openFDA drug-ndc JSON export: every result's product, packages and ingredients. */
export async function* parseOpenFdaJson(file: SourceFile, ctx?: ParseContext): AsyncIterable<Item> {
  for await (const { line, json } of resultElements(readPieces(file, { onBytes: ctx?.onBytes }), file.name)) {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch (e) {
      yield { line, table: 'product', issues: [{ loc: ['row', line, 'row'], msg: `not valid JSON: ${(e as Error).message}`, type: 'value_error', input: json.slice(0, 200) }] };
      continue;
    }
    const parsed = OpenFdaProductSchema.safeParse(value);
    if (!parsed.success) {
      yield { line, table: 'product', issues: parsed.error.issues.map((i) => ({ loc: ['row', line, i.path.join('.') || 'row'], msg: i.message, type: 'value_error', input: (value as Record<string, unknown>)?.[String(i.path[0])] ?? null })) };
      continue;
    }
    const bad = packageIssues(parsed.data, line);
    if (bad.length) {
      yield { line, table: 'product', issues: bad };
      continue;
    }
    yield* rowsOf(parsed.data, line);
  }
}
