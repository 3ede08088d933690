import { z } from 'zod';
import { parsePackageNdc } from '../../datasets/_shared/ndc.js';
import { IngredientRowSchema, PackageRowSchema, ProductRowSchema } from '../../datasets/fda_ndc/schema.js';
import { Ndc11Schema, ReliabilitySchema } from '../schemas.js';

/**
 * A package NDC as callers type it: 10 digits dashed 4-4-2, 5-3-2 or 5-4-1, or 11 digits 5-4-2
 * with or without dashes; validated to its `ndc11` (`00002322930`; ten digits without dashes are
 * refused: the padded segment cannot be known).
 */
export const PackageNdcSchema = z
  .string()
  .describe('package NDC: 10 digits dashed 4-4-2, 5-3-2 or 5-4-1 (`0002-3229-30`), or 11 digits 5-4-2 with or without dashes (`00002-3229-30`, `00002322930`)')
  .transform((s, ctx) => {
    const r = parsePackageNdc(s);
    if (r.ok) return r.ndc11;
    ctx.addIssue({ code: 'custom', message: r.msg, input: s });
    return z.NEVER;
  });

export const PackageParams = z.strictObject({ package_ndc: PackageNdcSchema });

export const DrugSearchQuerySchema = z.strictObject({
  q: z.string().trim().min(2, 'q must be at least 2 characters').max(200).describe('a product NDC in any form (or a package NDC: its product), a brand, generic or labeler name; typos tolerated'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** Spec "Drug product data": a product, as stored (the spec's fields plus the source columns). */
export const DrugProductSchema = ProductRowSchema.meta({ id: 'DrugProduct' });

/** Spec "Package detail response": the package in both NDC forms, its product and ingredients. */
export const PackageDetailSchema = z
  .object({
    package: PackageRowSchema.pick({ package_ndc: true, ndc_segments: true, description: true, marketing_start_date: true, marketing_end_date: true, sample: true, source: true }).extend({
      ndc11: Ndc11Schema,
    }),
    product: DrugProductSchema,
    ingredients: z.array(IngredientRowSchema.pick({ ingredient_ordinal: true, ingredient_name: true, ingredient_strength: true, strength_value: true, strength_unit: true })),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'DrugPackageDetail' });

/** Spec "Search response". */
export const DrugSearchSchema = z
  .object({
    total_count: z.number().int().describe('products matching, before `limit`'),
    reliability: ReliabilitySchema,
    results: z.array(DrugProductSchema),
  })
  .meta({ id: 'DrugSearch' });
