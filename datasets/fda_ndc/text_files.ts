import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import type { Issue } from '../../warehouse/errors.js';
import type { ParsedItem } from '../types.js';
import { isPackageNdc, isProductNdc, segmentsOf } from '../_shared/ndc.js';
import type { IngredientRow, NdcTable, PackageRow, ProductRow } from './schema.js';

/**
 * The NDC Directory text files (`product.txt`, `package.txt` in ndctext.zip; the unfinished and
 * excluded variants): tab-delimited, CRLF, CP1252, a header line, no quoting at all. The finished
 * and unfinished product files carry different columns (the unfinished one has no
 * PROPRIETARYNAME, ROUTENAME, APPLICATIONNUMBER, PHARM_CLASSES or NDC_EXCLUDE_FLAG), so every
 * column is found by its header name and a missing optional one reads as null.
 */

export type TextKind = 'product' | 'package';

/** Which text table a header line names, or undefined. */
export function textKindOf(headerFields: string[]): TextKind | undefined {
  const names = new Set(headerFields.map(normHeader));
  if (!names.has('PRODUCTID') || !names.has('PRODUCTNDC')) return undefined;
  if (names.has('NDCPACKAGECODE')) return 'package';
  if (names.has('PRODUCTTYPENAME')) return 'product';
  return undefined;
}

/** The text table a file sample holds (its first line is the header). */
export const textKindOfSample = (s: FileSample): TextKind | undefined => textKindOf((s.lines[0] ?? '').split('\t'));

/**
 * Splits FDA's `; `-joined lists (SUBSTANCENAME, ACTIVE_NUMERATOR_STRENGTH, ROUTENAME) outside
 * parentheses and brackets: `POLY(METHYL METHACRYLATE; 450000 MW)` is one substance (71028-0031 of
 * the 2018 unfinished file), and units such as `[USP'U]/1` keep their brackets.
 */
export function splitFdaList(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (c === ';' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/** openFDA's strength text: `40 mg/1` from ACTIVE_NUMERATOR_STRENGTH `40` and ACTIVE_INGRED_UNIT `mg/1`. */
export const strengthText = (value: string | null, unit: string | null): string | null => (value ? (unit ? `${value} ${unit}` : value) : null);

const issue = (line: number, field: string, msg: string, input: unknown): Issue => ({ loc: ['row', line, field], msg, type: 'value_error', input });

type Item = ParsedItem<ProductRow | PackageRow | IngredientRow> & { table?: NdcTable };

/** One product line: the product row and its ingredient rows, or the issues that reject it. */
function productItems(line: number, get: (name: string) => string, finished: boolean): Item[] {
  const r = new RowReader(line);
  const productId = r.text('PRODUCTID', get('PRODUCTID'), { required: true });
  const productNdc = r.text('PRODUCTNDC', get('PRODUCTNDC'), { required: true });
  const opt = (name: string) => clean(get(name)) || null;
  const row: ProductRow = {
    product_id: productId,
    product_ndc: productNdc,
    ndc_segments: segmentsOf(productNdc) ?? '',
    spl_id: productId.slice(productNdc.length + 1),
    product_type: opt('PRODUCTTYPENAME'),
    brand_name: opt('PROPRIETARYNAME'),
    brand_name_suffix: opt('PROPRIETARYNAMESUFFIX'),
    generic_name: opt('NONPROPRIETARYNAME'),
    dosage_form: opt('DOSAGEFORMNAME'),
    route: opt('ROUTENAME'),
    marketing_start_date: r.date('STARTMARKETINGDATE', get('STARTMARKETINGDATE')),
    marketing_end_date: r.date('ENDMARKETINGDATE', get('ENDMARKETINGDATE')),
    marketing_category: opt('MARKETINGCATEGORYNAME'),
    application_number: opt('APPLICATIONNUMBER'),
    labeler_name: opt('LABELERNAME'),
    pharm_classes: opt('PHARM_CLASSES'),
    dea_schedule: opt('DEASCHEDULE'),
    ndc_exclude_flag: opt('NDC_EXCLUDE_FLAG'),
    listing_expiration_date: r.date('LISTING_RECORD_CERTIFIED_THROUGH', get('LISTING_RECORD_CERTIFIED_THROUGH')),
    finished,
    openfda_manufacturer_name: null,
    openfda_rxcui: null,
    openfda_unii: null,
    source: 'ndc_text',
  };
  const issues = [...r.issues];
  if (productNdc && !isProductNdc(productNdc)) issues.push(issue(line, 'PRODUCTNDC', 'not a product NDC (labeler-product, 4-4, 5-3 or 5-4 digits)', productNdc));
  else if (productId && !productId.startsWith(`${productNdc}_`)) issues.push(issue(line, 'PRODUCTID', `PRODUCTID must be PRODUCTNDC, '_' and the SPL id (PRODUCTNDC is ${productNdc})`, productId));
  const names = opt('SUBSTANCENAME');
  const ingredients: IngredientRow[] = [];
  if (names) {
    const n = splitFdaList(names);
    const values = splitFdaList(clean(get('ACTIVE_NUMERATOR_STRENGTH')));
    const units = splitFdaList(clean(get('ACTIVE_INGRED_UNIT')));
    if (values.length !== n.length || units.length !== n.length) {
      issues.push(issue(line, 'SUBSTANCENAME', `${n.length} substances but ${values.length} strengths and ${units.length} units (the '; ' lists must align)`, names));
    }
    n.forEach((name, i) => {
      const value = values[i] || null;
      const unit = units[i] || null;
      ingredients.push({ product_id: productId, product_ndc: productNdc, ingredient_ordinal: i + 1, ingredient_name: name, ingredient_strength: strengthText(value, unit), strength_value: value, strength_unit: unit, source: 'ndc_text' });
    });
  }
  if (issues.length) return [{ line, table: 'product', issues }];
  return [{ line, table: 'product', row }, ...ingredients.map((ing) => ({ line, table: 'ingredient' as const, row: ing }))];
}

/** One package line. The 2018 unfinished file holds one package code that is only its last segment (`02` under 53209-2000): rejected. */
function packageItem(line: number, get: (name: string) => string): Item {
  const r = new RowReader(line);
  const productId = r.text('PRODUCTID', get('PRODUCTID'), { required: true });
  const productNdc = r.text('PRODUCTNDC', get('PRODUCTNDC'), { required: true });
  const packageNdc = r.text('NDCPACKAGECODE', get('NDCPACKAGECODE'), { required: true });
  const sampleRaw = clean(get('SAMPLE_PACKAGE')).toUpperCase();
  const row: PackageRow = {
    package_ndc: packageNdc,
    ndc_segments: segmentsOf(packageNdc) ?? '',
    product_id: productId,
    product_ndc: productNdc,
    description: clean(get('PACKAGEDESCRIPTION')) || null,
    marketing_start_date: r.date('STARTMARKETINGDATE', get('STARTMARKETINGDATE')),
    marketing_end_date: r.date('ENDMARKETINGDATE', get('ENDMARKETINGDATE')),
    sample: sampleRaw === 'Y' ? true : sampleRaw === 'N' ? false : null,
    ndc_exclude_flag: clean(get('NDC_EXCLUDE_FLAG')) || null,
    source: 'ndc_text',
  };
  const issues = [...r.issues];
  if (packageNdc && !(isPackageNdc(packageNdc) && packageNdc.startsWith(`${productNdc}-`))) {
    issues.push(issue(line, 'NDCPACKAGECODE', `not a package NDC of product ${productNdc} (labeler-product-package, 4-4-2, 5-3-2 or 5-4-1 digits)`, packageNdc));
  }
  if (sampleRaw !== '' && row.sample === null) issues.push(issue(line, 'SAMPLE_PACKAGE', 'SAMPLE_PACKAGE must be Y or N', get('SAMPLE_PACKAGE')));
  return issues.length ? { line, table: 'package', issues } : { line, table: 'package', row };
}

/** Reads one NDC Directory text file: products (with their ingredients) or packages. */
export async function* parseTextFile(file: SourceFile): AsyncIterable<Item> {
  const records = readRecords(file, { delimiter: '\t', quote: false })[Symbol.asyncIterator]();
  const { header } = await findHeader(records, file, (f) => textKindOf(f) !== undefined, 'PRODUCTID, PRODUCTNDC and PRODUCTTYPENAME or NDCPACKAGECODE, tab-separated', 3);
  const kind = textKindOf(header.fields)!;
  const names = header.fields.map(normHeader);
  const index = new Map(names.map((n, i) => [n, i]));
  // The unfinished-drugs files are named so; their header also lacks the finished file's PROPRIETARYNAME.
  const finished = !/unfinished/i.test(file.name) && index.has('PROPRIETARYNAME');
  for await (const { line, fields } of dataRecords(records)) {
    if (fields.length !== names.length) {
      yield { line, table: kind, issues: [issue(line, 'row', `expected ${names.length} tab-separated fields as in the header, found ${fields.length}`, fields.join('\t').slice(0, 200))] };
      continue;
    }
    const get = (name: string) => {
      const i = index.get(name);
      return i === undefined ? '' : fields[i]!;
    };
    if (kind === 'package') yield packageItem(line, get);
    else yield* productItems(line, get, finished);
  }
}
