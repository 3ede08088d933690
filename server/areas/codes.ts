import { z } from 'zod';
import { NotFoundError } from '../../warehouse/errors.js';
import { STATUS_CODES, findRvuRows } from '../../datasets/mpfs_rvu/queries.js';
import { defineRoute, type RouteDef } from '../route.js';
import { HcpcsSchema, ReliabilitySchema } from '../schemas.js';

const RvuEntrySchema = z.object({
  version: z.string(),
  rvu_year: z.number(),
  rvu_quarter: z.number(),
  modifier: z.string(),
  status_code: z.string(),
  work_rvu: z.number().nullable(),
  non_fac_pe_rvu: z.number().nullable(),
  facility_pe_rvu: z.number().nullable(),
  mp_rvu: z.number().nullable(),
  non_facility_total: z.number().nullable(),
  facility_total: z.number().nullable(),
  non_fac_na_indicator: z.string(),
  facility_na_indicator: z.string(),
  pctc_indicator: z.string(),
  global_days: z.string(),
  mult_proc: z.string(),
  conv_factor: z.number().nullable(),
  conv_factor_qpp: z.number().nullable(),
});

export const CodeLookupSchema = z.object({
  code: z.string(),
  description: z.string(),
  status_code: z.string(),
  status_description: z.string().nullable(),
  modifiers: z.array(z.string()),
  rvus: z.array(RvuEntrySchema),
  reliability: ReliabilitySchema,
});

/** Code lookup (descriptor, status, RVUs per release). */
export const codeRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/codes/{code}',
    operationId: 'getCode',
    tag: 'codes',
    summary: 'Code lookup: descriptor, status and RVUs per year and quarter',
    scope: 'knowledge',
    cache: true,
    params: z.object({ code: HcpcsSchema }),
    response: CodeLookupSchema,
    errors: [404],
    handler: async ({ params, snapshot, reliability }) => {
      const rows = await findRvuRows(snapshot, params.code);
      if (rows.length === 0) throw new NotFoundError(`code ${params.code} was not found in any loaded RVU release`);
      const latest = rows.reduce((a, b) => (b.year * 10 + b.quarter >= a.year * 10 + a.quarter ? b : a));
      const global = rows.filter((r) => r.version === latest.version).find((r) => r.modifier === '') ?? latest;
      const versions = [...new Set(rows.map((r) => r.version))];
      return {
        code: params.code,
        description: global.description,
        status_code: global.status_code,
        status_description: STATUS_CODES[global.status_code] ?? null,
        modifiers: [...new Set(rows.map((r) => r.modifier).filter(Boolean))].sort(),
        rvus: rows.map((r) => ({
          version: r.version,
          rvu_year: r.year,
          rvu_quarter: r.quarter,
          modifier: r.modifier,
          status_code: r.status_code,
          work_rvu: r.work_rvu,
          non_fac_pe_rvu: r.non_fac_pe_rvu,
          facility_pe_rvu: r.facility_pe_rvu,
          mp_rvu: r.mp_rvu,
          non_facility_total: r.non_facility_total,
          facility_total: r.facility_total,
          non_fac_na_indicator: r.non_fac_na_indicator,
          facility_na_indicator: r.facility_na_indicator,
          pctc_indicator: r.pctc_indicator,
          global_days: r.global_days,
          mult_proc: r.mult_proc,
          conv_factor: r.conv_factor,
          conv_factor_qpp: r.conv_factor_qpp,
        })),
        reliability: reliability({ mpfs_rvu: latest.version }, versions.length > 1 ? { warnings: [] } : {}),
      };
    },
  }),
];
