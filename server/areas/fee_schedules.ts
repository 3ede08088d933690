import { z } from 'zod';
import { NotFoundError } from '../../warehouse/errors.js';
import { getAspPaymentLimit } from '../../datasets/asp_pricing/queries.js';
import { findHcpcsForNdc, findNdcsForHcpcs } from '../../datasets/asp_crosswalk/queries.js';
import { toNdc11 } from '../../datasets/asp_crosswalk/dataset.js';
import { findLabFees, isLabCode } from '../../datasets/clfs/queries.js';
import { findDmeFees } from '../../datasets/dmepos/queries.js';
import { getOppsRate, isOppsCode } from '../../datasets/opps_addendum_b/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { defineRoute, type RouteDef } from '../route.js';
import { HcpcsSchema, ReliabilitySchema, StateSchema } from '../schemas.js';

// Query functions the payment-composition code calls (re-exported so one import covers them).
export { getDmeRate, dmeRateFor } from '../../datasets/dmepos/queries.js';
export { isDmeRuralZip } from '../../datasets/dmepos_rural_zip/queries.js';
export { getLabRate } from '../../datasets/clfs/queries.js';
export { getOppsRate } from '../../datasets/opps_addendum_b/queries.js';
export { getAspPaymentLimit } from '../../datasets/asp_pricing/queries.js';

const YearSchema = z.coerce.number().int().min(1990).max(2100);

/** Spec "Fee schedule rows": DME row (rates null where CMS prints 0.00 = no fee published). */
export const DmeRowSchema = z.object({
  hcpcs_code: z.string(),
  state: z.string(),
  year: z.number(),
  category: z.string(),
  jurisdiction: z.string(),
  modifier: z.string(),
  modifier2: z.string(),
  short_descriptor: z.string(),
  ceiling: z.number().nullable(),
  floor: z.number().nullable(),
  non_rural_rate: z.number().nullable(),
  rural_rate: z.number().nullable(),
});

/** DME list response: rows of one release plus the count before `limit`. */
export const DmeListSchema = z.object({
  results: z.array(DmeRowSchema),
  total_count: z.number().int().default(0),
  reliability: ReliabilitySchema,
});

/** Spec "Fee schedule rows": OPPS row (Addendum B). */
export const OppsRowSchema = z.object({
  hcpcs_code: z.string(),
  year: z.number(),
  short_descriptor: z.string(),
  status_indicator: z.string(),
  apc_code: z.string().nullable(),
  relative_weight: z.number().nullable(),
  payment_rate: z.number().nullable(),
  national_unadjusted_copayment: z.number().nullable(),
  minimum_unadjusted_copayment: z.number().nullable(),
  ira_coinsurance_pct: z.number().nullable(),
  adjusted_copayment: z.number().nullable(),
  drug_device_passthrough_expiry: z.string().nullable(),
  reliability: ReliabilitySchema,
});

/** Clinical lab fee row (the spec names the endpoint area only; shape follows the DME list). */
export const LabRowSchema = z.object({
  hcpcs_code: z.string(),
  modifier: z.string(),
  year: z.number(),
  effective_date: z.string(),
  indicator: z.string(),
  rate: z.number().nullable(),
  nationally_priced: z.boolean(),
  short_descriptor: z.string(),
  long_descriptor: z.string().nullable(),
});

/** Lab list response (plain and `QW` rows of one CLFS quarter). */
export const LabListSchema = z.object({
  results: z.array(LabRowSchema),
  total_count: z.number().int().default(0),
  reliability: ReliabilitySchema,
});

/** Spec "Crosswalk result" entry, plus optional `attributes`. */
export const CrosswalkEntrySchema = z.object({
  target_code: z.string(),
  target_system: z.string(),
  confidence: z.number(),
  crosswalk_type: z.string(),
  description: z.string(),
  relationship_type: z.string(),
  /** Source facts that qualify the link (billing units per package, status indicator, …). */
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
});

/** Spec "Crosswalk result": `by_system` groups `crosswalks` by target system (`APC`, `NDC`, `HCPCS`). */
export const CrosswalkResultSchema = z.object({
  code: z.string(),
  by_system: z.record(z.string(), z.array(CrosswalkEntrySchema)),
  crosswalks: z.array(CrosswalkEntrySchema),
  total_count: z.number().int().default(0),
  reliability: ReliabilitySchema,
});

/** One crosswalk target (APC, NDC or HCPCS) with its source facts. */
export type CrosswalkEntry = z.infer<typeof CrosswalkEntrySchema>;

/** A HCPCS code (`J9035`) or an NDC: 11 digits, or dashed 5-4-2 / 4-4-2 / 5-3-2 / 5-4-1. */
export const CrosswalkCodeSchema = z
  .string()
  .trim()
  .transform((s) => s.toUpperCase())
  .pipe(
    z
      .string()
      .regex(
        /^(?:[A-Z0-9]{5}|\d{11}|\d{5}-\d{4}-\d{2}|\d{4}-\d{4}-\d{2}|\d{5}-\d{3}-\d{2}|\d{5}-\d{4}-\d)$/,
        'Code must be a 5-character HCPCS/CPT code or an NDC (11 digits or dashed 5-4-2, 4-4-2, 5-3-2, 5-4-1)',
      ),
  );

/** Dashed 10-digit NDC forms padded to the 11-digit 5-4-2 form billing uses (`0002-1433-80` -> `00002143380`). */
export function toNdc11Any(code: string): string | undefined {
  const m = /^(\d{4,5})-(\d{3,4})-(\d{1,2})$/.exec(code);
  if (m) return `${m[1]!.padStart(5, '0')}${m[2]!.padStart(4, '0')}${m[3]!.padStart(2, '0')}`;
  return toNdc11(code);
}

/**
 * Official CMS crosswalks of a code: HCPCS -> APC (OPPS Addendum B) and HCPCS -> NDC (ASP
 * NDC-HCPCS crosswalk), or NDC -> HCPCS. Null when no loaded dataset knows the code. `used` maps
 * each dataset consulted to the version answered from (for the reliability object).
 */
export async function findCrosswalks(
  snapshot: SnapshotReader,
  code: string,
): Promise<{ code: string; crosswalks: CrosswalkEntry[]; used: Record<string, string> } | null> {
  const used: Record<string, string> = {};
  const crosswalks: CrosswalkEntry[] = [];
  const isNdc = /^\d{11}$|-/.test(code);
  if (isNdc) {
    const ndc = toNdc11Any(code);
    if (!ndc) return null;
    const links = await findHcpcsForNdc(snapshot, ndc);
    if (links.length === 0) return null;
    used.asp_crosswalk = links[0]!.version;
    for (const l of links) {
      crosswalks.push({
        target_code: l.hcpcs_code,
        target_system: 'HCPCS',
        confidence: 1,
        crosswalk_type: 'ndc_to_hcpcs',
        description: l.short_descriptor,
        relationship_type: 'billed_under',
        attributes: { ndc: l.ndc, drug_name: l.drug_name, labeler_name: l.labeler_name, hcpcs_dosage: l.hcpcs_dosage, bill_units: l.bill_units, bill_units_pkg: l.bill_units_pkg },
      });
    }
    return { code: ndc, crosswalks, used };
  }
  const [opps, ndcs, asp, inOpps, inLab] = await Promise.all([
    getOppsRate(snapshot, code),
    findNdcsForHcpcs(snapshot, code),
    getAspPaymentLimit(snapshot, code),
    isOppsCode(snapshot, code),
    isLabCode(snapshot, code),
  ]);
  if (!opps && ndcs.length === 0 && !asp && !inOpps && !inLab) return null;
  if (opps) {
    used.opps_addendum_b = opps.version;
    if (opps.apc_code) {
      crosswalks.push({
        target_code: opps.apc_code,
        target_system: 'APC',
        confidence: 1,
        crosswalk_type: 'hcpcs_to_apc',
        description: opps.short_descriptor,
        relationship_type: 'paid_under',
        attributes: { status_indicator: opps.status_indicator, relative_weight: opps.relative_weight, payment_rate: opps.payment_rate, year: opps.year },
      });
    }
  }
  if (ndcs.length > 0) used.asp_crosswalk = ndcs[0]!.version;
  for (const l of ndcs) {
    crosswalks.push({
      target_code: l.ndc_hyphenated,
      target_system: 'NDC',
      confidence: 1,
      crosswalk_type: 'hcpcs_to_ndc',
      description: [l.drug_name, l.labeler_name].filter(Boolean).join(', '),
      relationship_type: 'billed_as',
      attributes: { ndc: l.ndc, hcpcs_dosage: l.hcpcs_dosage, pkg_size: l.pkg_size, pkg_qty: l.pkg_qty, bill_units: l.bill_units, bill_units_pkg: l.bill_units_pkg },
    });
  }
  return { code, crosswalks, used };
}

function groupBySystem(entries: CrosswalkEntry[]): Record<string, CrosswalkEntry[]> {
  const out: Record<string, CrosswalkEntry[]> = {};
  for (const e of entries) (out[e.target_system] ??= []).push(e);
  return out;
}

/** OPPS, DMEPOS and clinical lab fee lookups plus the HCPCS/APC/NDC crosswalk. */
export const feeScheduleRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/fee-schedules/dme/{code}',
    operationId: 'getDmeFees',
    tag: 'fee-schedules',
    summary: 'DMEPOS fee schedule rows of a HCPCS code, per state and modifier pair',
    description:
      'Rows of the latest loaded DMEPOS release (or the latest one effective in `year`). Rates are null where CMS publishes no fee (0.00 in the file). 404 when no loaded release has the code.',
    scope: 'knowledge',
    cache: true,
    params: z.object({ code: HcpcsSchema }),
    query: z.object({
      state: StateSchema.optional(),
      year: YearSchema.optional(),
      limit: z.coerce.number().int().min(1).max(200).default(50),
    }),
    response: DmeListSchema,
    errors: [404],
    handler: async ({ params, query, snapshot, reliability }) => {
      const r = await findDmeFees(snapshot, params.code, query);
      if (!r.known) throw new NotFoundError(`HCPCS ${params.code} is not on any loaded DMEPOS fee schedule`);
      const warnings = r.version ? [] : [`no DMEPOS release effective in ${query.year} is loaded`];
      return {
        results: r.rows.map((x) => ({
          hcpcs_code: x.hcpcs_code,
          state: x.state,
          year: x.year,
          category: x.category,
          jurisdiction: x.jurisdiction,
          modifier: x.modifier,
          modifier2: x.modifier2,
          short_descriptor: x.short_descriptor,
          ceiling: x.ceiling,
          floor: x.floor,
          non_rural_rate: x.non_rural_rate,
          rural_rate: x.rural_rate,
        })),
        total_count: r.total_count,
        reliability: reliability(r.version ? { dmepos: r.version } : ['dmepos'], { warnings }),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/fee-schedules/opps/{code}',
    operationId: 'getOppsFee',
    tag: 'fee-schedules',
    summary: 'OPPS Addendum B row of a HCPCS code: status indicator, APC, weight, payment rate, copayments',
    description: 'From the latest loaded Addendum B release, or the latest one effective in `year`. 404 when that release lacks the code.',
    scope: 'knowledge',
    cache: true,
    params: z.object({ code: HcpcsSchema }),
    query: z.object({ year: YearSchema.optional() }),
    response: OppsRowSchema,
    errors: [404],
    handler: async ({ params, query, snapshot, reliability }) => {
      const row = await getOppsRate(snapshot, params.code, query.year);
      if (!row) {
        const where = query.year ? `the ${query.year} OPPS Addendum B` : 'the loaded OPPS Addendum B';
        throw new NotFoundError(`HCPCS ${params.code} is not in ${where}`);
      }
      return {
        hcpcs_code: row.hcpcs_code,
        year: row.year,
        short_descriptor: row.short_descriptor,
        status_indicator: row.status_indicator,
        apc_code: row.apc_code,
        relative_weight: row.relative_weight,
        payment_rate: row.payment_rate,
        national_unadjusted_copayment: row.national_unadjusted_copayment,
        minimum_unadjusted_copayment: row.minimum_unadjusted_copayment,
        ira_coinsurance_pct: row.ira_coinsurance_pct,
        adjusted_copayment: row.adjusted_copayment,
        drug_device_passthrough_expiry: row.drug_device_passthrough_expiry,
        reliability: reliability({ opps_addendum_b: row.version }),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/fee-schedules/lab/{code}',
    operationId: 'getLabFee',
    tag: 'fee-schedules',
    summary: 'Clinical Laboratory Fee Schedule national limits of a HCPCS code (plain and QW)',
    description:
      'From the latest loaded CLFS quarter, or the latest one effective in `year`. `rate` is null for codes not nationally priced (indicator L). 404 when no loaded quarter has the code.',
    scope: 'knowledge',
    cache: true,
    params: z.object({ code: HcpcsSchema }),
    query: z.object({ year: YearSchema.optional() }),
    response: LabListSchema,
    errors: [404],
    handler: async ({ params, query, snapshot, reliability }) => {
      const { version, rows } = await findLabFees(snapshot, params.code, query.year);
      if (rows.length === 0 && !(await isLabCode(snapshot, params.code))) {
        throw new NotFoundError(`HCPCS ${params.code} is not on any loaded Clinical Laboratory Fee Schedule`);
      }
      const warnings = version ? [] : [`no CLFS quarter effective in ${query.year} is loaded`];
      return {
        results: rows.map((r) => ({
          hcpcs_code: r.hcpcs_code,
          modifier: r.modifier,
          year: r.year,
          effective_date: r.effective_date,
          indicator: r.indicator,
          rate: r.rate,
          nationally_priced: r.rate !== null,
          short_descriptor: r.short_descriptor,
          long_descriptor: r.long_descriptor,
        })),
        total_count: rows.length,
        reliability: reliability(version ? { clfs: version } : ['clfs'], { warnings }),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/codes/crosswalk/{code}',
    operationId: 'getCrosswalk',
    tag: 'codes',
    summary: 'Crosswalks of a HCPCS code (to APC and NDC) or an NDC (to HCPCS), grouped by target system',
    description: 'HCPCS -> APC from OPPS Addendum B; HCPCS <-> NDC from the CMS ASP NDC-HCPCS crosswalk. 404 when no loaded dataset knows the code.',
    scope: 'knowledge',
    cache: true,
    params: z.object({ code: CrosswalkCodeSchema }),
    response: CrosswalkResultSchema,
    errors: [404],
    handler: async ({ params, snapshot, reliability }) => {
      const r = await findCrosswalks(snapshot, params.code);
      if (!r) throw new NotFoundError(`code ${params.code} is not in any loaded crosswalk source (OPPS Addendum B, ASP NDC-HCPCS crosswalk)`);
      const used = Object.keys(r.used).length > 0 ? r.used : ['opps_addendum_b', 'asp_crosswalk'];
      return {
        code: r.code,
        by_system: groupBySystem(r.crosswalks),
        crosswalks: r.crosswalks,
        total_count: r.crosswalks.length,
        reliability: reliability(used),
      };
    },
  }),
];
