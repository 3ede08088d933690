import { z } from 'zod';
import { table } from '../_shared/table.js';

/**
 * The FDA NDC Directory as three tables: products (one per FDA `PRODUCTID`), their packages (one
 * per package NDC) and their active ingredients (one per product and position). Product NDCs are
 * not unique: the 2018 unfinished file lists 273 NDCs under 2 to 11 SPLs each (0009-5023 three
 * times), so products are keyed by `product_id` (`<product NDC>_<SPL id>`), which is.
 */

const date = z.string().nullable().describe('YYYY-MM-DD');
const text = z.string().nullable();

/** Where a row came from: the NDC Directory text files, the openFDA JSON export, or both merged. */
export const NDC_SOURCES = ['ndc_text', 'openfda', 'ndc_text+openfda'] as const;
const source = z.enum(NDC_SOURCES).describe('`ndc_text` (FDA NDC Directory text files), `openfda` (openFDA drug-ndc JSON), or both merged by product NDC');

export const ProductRowSchema = z.object({
  product_id: z.string().describe('FDA PRODUCTID: `<product NDC>_<SPL id>`'),
  product_ndc: z.string().describe('labeler-product as FDA publishes it (4-4, 5-3 or 5-4)'),
  ndc_segments: z.string().describe('segment lengths of product_ndc (`4-4`): what its 9-digit 5-4 form pads'),
  spl_id: z.string().describe('the SPL document id (the GUID of product_id)'),
  product_type: text.describe('PRODUCTTYPENAME, e.g. HUMAN PRESCRIPTION DRUG, BULK INGREDIENT'),
  brand_name: text.describe('PROPRIETARYNAME (finished drugs only)'),
  brand_name_suffix: text,
  generic_name: text.describe('NONPROPRIETARYNAME'),
  dosage_form: text,
  route: text.describe('ROUTENAME; several joined by `; ` as FDA writes them'),
  marketing_start_date: date,
  marketing_end_date: date,
  marketing_category: text,
  application_number: text.describe('NDA021411, ANDA203572, or a monograph id such as part333A'),
  labeler_name: text,
  pharm_classes: text.describe('PHARM_CLASSES: a comma list of `Name [EPC]` / `Name [MoA]` terms'),
  dea_schedule: text.describe('CII ... CV, or null'),
  ndc_exclude_flag: text.describe('NDC_EXCLUDE_FLAG of the finished and excluded files (N, E, I, U)'),
  listing_expiration_date: date.describe('LISTING_RECORD_CERTIFIED_THROUGH (text files) or listing_expiration_date (openFDA)'),
  finished: z.boolean().describe('false for the unfinished-drugs files (bulk ingredients, drugs for further processing)'),
  openfda_manufacturer_name: text.describe('openFDA annotation (JSON only); several joined by `; `'),
  openfda_rxcui: text.describe('RxNorm concept ids (openFDA annotation, JSON only); several joined by `; `'),
  openfda_unii: text.describe('FDA UNII substance ids (openFDA annotation, JSON only); several joined by `; `'),
  source,
});
export type ProductRow = z.infer<typeof ProductRowSchema>;

export const PackageRowSchema = z.object({
  package_ndc: z.string().describe('labeler-product-package as FDA publishes it (4-4-2, 5-3-2 or 5-4-1)'),
  ndc_segments: z.string().describe('segment lengths of package_ndc (`4-4-2`): its 11-digit 5-4-2 form pads the shorter one'),
  product_id: z.string(),
  product_ndc: z.string(),
  description: text.describe('PACKAGEDESCRIPTION; nested packages joined by `  > `'),
  marketing_start_date: date,
  marketing_end_date: date,
  sample: z.boolean().nullable().describe('SAMPLE_PACKAGE; null where the file has no such column (unfinished)'),
  ndc_exclude_flag: text,
  source,
});
export type PackageRow = z.infer<typeof PackageRowSchema>;

export const IngredientRowSchema = z.object({
  product_id: z.string(),
  product_ndc: z.string(),
  ingredient_ordinal: z.int().describe('1-based position in SUBSTANCENAME / active_ingredients'),
  ingredient_name: z.string(),
  ingredient_strength: text.describe('strength and unit as openFDA writes them: `40 mg/1`, `.5 mg/1`'),
  strength_value: text.describe('ACTIVE_NUMERATOR_STRENGTH as published (`.75`)'),
  strength_unit: text.describe('ACTIVE_INGRED_UNIT (`mg/.5mL`, `[USP\'U]/1`)'),
  source,
});
export type IngredientRow = z.infer<typeof IngredientRowSchema>;

export const NDC_TABLES = {
  product: table('product', ProductRowSchema, ['product_id']),
  package: table('package', PackageRowSchema, ['package_ndc']),
  ingredient: table('ingredient', IngredientRowSchema, ['product_id', 'ingredient_ordinal']),
};
export type NdcTable = keyof typeof NDC_TABLES;
