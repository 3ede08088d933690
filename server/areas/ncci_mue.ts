import { z } from 'zod';
import { MUE_TYPES } from '../../datasets/_ncci_mue/mue.js';
import { PROC_CODE_RE } from '../../datasets/_ncci_mue/quarter.js';
import { findMedicaidMues, findMedicareMues } from '../../datasets/_ncci_mue/queries.js';
import { ANY_PRIMARY, type AocRow } from '../../datasets/ncci_aoc/dataset.js';
import { findAocEdits } from '../../datasets/ncci_aoc/queries.js';
import { defineRoute, type RouteDef } from '../route.js';
import { HcpcsSchema, IsoDateSchema, ReliabilitySchema } from '../schemas.js';

/** A HCPCS/CPT code in a shape NCCI files use (`99213`, `0001U`, `J9035`); anything else is 422. */
const NcciCodeSchema = HcpcsSchema.refine((s) => PROC_CODE_RE.test(s), {
  message: 'Code must be a CPT code (5 digits, or 4 digits and a letter) or a HCPCS Level II code (a letter and 4 digits)',
});

const CodeParams = z.object({ code: NcciCodeSchema });
const DosQuery = z.object({
  date_of_service: IsoDateSchema.optional().describe('YYYY-MM-DD; selects the quarterly version whose quarter contains it (latest when omitted)'),
});

const MueTypeSchema = z.enum(MUE_TYPES as [string, ...string[]]);

/** One Medicare MUE row per setting, with the version it came from. */
export const MedicareMueSchema = z.object({
  proc_cd: z.string(),
  mue_type: MueTypeSchema,
  program: z.literal('medicare'),
  mue_value: z.number().int().describe('maximum units of service'),
  mue_adj_ind: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe('MUE Adjudication Indicator: 1 line edit, 2 date-of-service edit (policy), 3 date-of-service edit (clinical)'),
  mue_adj_ind_label: z.string().describe('the indicator words as published, e.g. "Date of Service Edit: Policy"'),
  mue_rationale: z.string().nullable(),
  version: z.string().describe('quarter label, e.g. 2026Q3'),
  version_effective_dt: z.string().nullable(),
  loaded_at: z.string(),
  source_file: z.string().nullable(),
});

/** `GET /v1/ncci/mue/{code}`: the Medicare MUE rows of a code across settings. */
export const MedicareMueListSchema = z.object({
  proc_cd: z.string(),
  program: z.literal('medicare'),
  date_of_service: z.string().nullable(),
  results: z.array(MedicareMueSchema),
  reliability: ReliabilitySchema,
});

/** The spec's MedicaidMUEResponse. */
export const MedicaidMueSchema = z.object({
  proc_cd: z.string(),
  mue_type: MueTypeSchema,
  note: z.string(),
  program: z.literal('medicaid').default('medicaid'),
  mue_value: z.number().int().nullable(),
  mue_adj_ind: z.null(),
  mue_rationale: z.string().nullable(),
  medicare_mue_value: z.number().int().nullable(),
  loaded_at: z.string().nullable(),
  source_file: z.string().nullable(),
});

/** The spec's MedicaidMUEListResponse, plus the reliability block. */
export const MedicaidMueListSchema = z.object({
  proc_cd: z.string(),
  program: z.literal('medicaid').default('medicaid'),
  results: z.array(MedicaidMueSchema),
  reliability: ReliabilitySchema,
});

const SETTING_WORDS: Record<string, string> = {
  practitioner: 'practitioner (and ASC) claims',
  'hosp-op': 'outpatient hospital claims',
  dme: 'DME supplier claims',
};

/**
 * Why a Medicaid row has no adjudication indicator. The Medicaid NCCI MUE files publish only the
 * code, value and rationale; states decide how to apply them (CMS Medicaid NCCI Technical Guidance).
 */
export function medicaidMueNote(mueType: string): string {
  return (
    `Medicaid NCCI MUEs have no MUE Adjudication Indicator (MAI): the Medicaid MUE file publishes only the unit value and rationale, so mue_adj_ind is null. ` +
    `The value is the maximum units of service one provider reports for one beneficiary on one date of service on ${SETTING_WORDS[mueType] ?? 'claims'}; ` +
    `each state Medicaid program applies it in its own claims system (per claim line or per date of service, with its own override and appeal rules), so check the state's NCCI policy. ` +
    `medicare_mue_value is the Medicare MUE for the same code and setting, for side-by-side review only.`
  );
}

const AOC_TYPE_DESCRIPTIONS: Record<number, string> = {
  1: 'Type 1: CPT/HCPCS define every acceptable primary code; contractors allow no other primaries.',
  2: 'Type 2: CPT/HCPCS list no primary codes; the contractor decides which primaries are acceptable.',
  3: 'Type 3: CPT/HCPCS list some primary codes; the contractor may allow other primaries.',
};

const AocEditFields = {
  aoc_edit_type: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  aoc_edit_type_description: z.string(),
  aoc_edit_eff_dt: z.string(),
  aoc_edit_del_dt: z.string().nullable().describe('last date of service the edit applies; null while active'),
  addon_del_dt: z.string().nullable(),
  primary_del_dt: z.string().nullable(),
  special_instruction_notes: z.string().nullable(),
};

const AocPrimarySchema = z.object({
  primary_code: z.string().nullable().describe('null for a Type 2 add-on with no specific primary codes (CCCCC in the file)'),
  any_primary: z.boolean(),
  ...AocEditFields,
});

const AocAddonSchema = z.object({ addon_code: z.string(), ...AocEditFields });

/** Add-on code edits for one code, seen as an add-on and as a primary. */
export const AocLookupSchema = z.object({
  code: z.string(),
  date_of_service: z.string().nullable(),
  version: z.string().nullable(),
  version_effective_dt: z.string().nullable(),
  is_add_on: z.boolean(),
  primary_codes: z.array(AocPrimarySchema).describe('when the code is an add-on: the primary codes it may be reported with'),
  add_on_codes: z.array(AocAddonSchema).describe('when the code is a primary: the add-on codes that list it'),
  reliability: ReliabilitySchema,
});

function aocEdit(r: AocRow) {
  const t = r.aoc_edit_type as 1 | 2 | 3;
  return {
    aoc_edit_type: t,
    aoc_edit_type_description: AOC_TYPE_DESCRIPTIONS[t] ?? '',
    aoc_edit_eff_dt: r.aoc_edit_eff_dt,
    aoc_edit_del_dt: r.aoc_edit_del_dt,
    addon_del_dt: r.addon_del_dt,
    primary_del_dt: r.primary_del_dt,
    special_instruction_notes: r.special_instruction_notes,
  };
}

/**
 * NCCI MUE (Medicare and Medicaid) and add-on code routes. A well-formed code with no edit answers
 * 200 with empty lists (the spec: "a lookup that finds nothing may return an empty list"): for
 * edits, "no MUE / not an add-on" is an answer, not a missing resource. Versions are chosen by
 * `date_of_service`; a date no loaded quarter covers is answered from the nearest one with
 * `reliability.degraded = true` and a warning.
 */
export const ncciMueRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/ncci/mue/{code}',
    operationId: 'getMue',
    tag: 'ncci',
    summary: 'Medicare MUEs for a code: practitioner, outpatient hospital and DME rows',
    description:
      'Value, adjudication indicator (1/2/3 with its words) and rationale per setting, from the quarterly version that covers date_of_service. An unknown code returns an empty results list.',
    scope: 'knowledge',
    cache: true,
    params: CodeParams,
    query: DosQuery,
    response: MedicareMueListSchema,
    handler: async ({ params, query, snapshot, reliability }) => {
      const found = await findMedicareMues(snapshot, params.code, query.date_of_service);
      return {
        proc_cd: params.code,
        program: 'medicare' as const,
        date_of_service: query.date_of_service ?? null,
        results: found.lookups
          .filter((l) => l.row)
          .map((l) => ({
            proc_cd: l.row!.proc_cd,
            mue_type: l.mue_type,
            program: 'medicare' as const,
            mue_value: l.row!.mue_value,
            mue_adj_ind: l.row!.mue_adj_ind as 1 | 2 | 3,
            mue_adj_ind_label: l.row!.mue_adj_ind_label,
            mue_rationale: l.row!.mue_rationale,
            version: l.used.version,
            version_effective_dt: l.used.effective_date,
            loaded_at: l.used.loaded_at,
            source_file: l.used.source_file,
          })),
        reliability: reliability(found.versions, { warnings: found.warnings, degraded: found.degraded }),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ncci/medicaid/mue/{code}',
    operationId: 'getMedicaidMue',
    tag: 'ncci',
    summary: 'Medicaid MUEs for a code across practitioner, hosp-op and DME, with the Medicare value beside each',
    description:
      'Medicaid NCCI MUE rows (mue_adj_ind is always null: Medicaid files have no adjudication indicator) with medicare_mue_value for the same code and setting. Optional date_of_service selects the quarterly version (latest when omitted). An unknown code returns an empty results list.',
    scope: 'knowledge',
    cache: true,
    params: CodeParams,
    query: DosQuery,
    response: MedicaidMueListSchema,
    handler: async ({ params, query, snapshot, reliability }) => {
      const found = await findMedicaidMues(snapshot, params.code, query.date_of_service);
      return {
        proc_cd: params.code,
        program: 'medicaid' as const,
        results: found.lookups
          .filter((l) => l.row)
          .map((l) => ({
            proc_cd: l.row!.proc_cd,
            mue_type: l.mue_type,
            note: medicaidMueNote(l.mue_type),
            program: 'medicaid' as const,
            mue_value: l.row!.mue_value,
            mue_adj_ind: null,
            mue_rationale: l.row!.mue_rationale,
            medicare_mue_value: l.medicare_mue_value,
            loaded_at: l.used.loaded_at,
            source_file: l.used.source_file,
          })),
        reliability: reliability(found.versions, { warnings: found.warnings, degraded: found.degraded }),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ncci/aoc/{code}',
    operationId: 'getAoc',
    tag: 'ncci',
    summary: 'Add-on code edits for a code: its primary codes as an add-on, and the add-ons that list it as a primary',
    description:
      'Edits in force on date_of_service (effective on or before it, not deleted before it) from the quarterly version covering it; without a date, the active edits of the latest version. A code with no AOC edits returns empty lists.',
    scope: 'knowledge',
    cache: true,
    params: CodeParams,
    query: DosQuery,
    response: AocLookupSchema,
    handler: async ({ params, query, snapshot, reliability }) => {
      const found = await findAocEdits(snapshot, params.code, query.date_of_service);
      const warnings = found ? (found.used.warning ? [found.used.warning] : []) : ['ncci_aoc is not loaded: no add-on code edits can be reported'];
      return {
        code: params.code,
        date_of_service: query.date_of_service ?? null,
        version: found?.used.version ?? null,
        version_effective_dt: found?.used.effective_date ?? null,
        is_add_on: (found?.as_addon.length ?? 0) > 0,
        primary_codes: (found?.as_addon ?? []).map((r) => ({
          primary_code: r.primary_code === ANY_PRIMARY ? null : r.primary_code,
          any_primary: r.primary_code === ANY_PRIMARY,
          ...aocEdit(r),
        })),
        add_on_codes: (found?.as_primary ?? []).map((r) => ({ addon_code: r.addon_code, ...aocEdit(r) })),
        reliability: reliability(found ? { ncci_aoc: found.used.version } : {}, {
          warnings,
          degraded: !found || !found.used.covered,
        }),
      };
    },
  }),
];
