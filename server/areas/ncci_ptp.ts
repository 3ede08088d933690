import { z } from 'zod';
import { lookupPtpEdit, type PtpDatasetId, type PtpLookup } from '../../datasets/ncci_ptp_prac/queries.js';
import { auditSummary } from '../ncci/sentinel.js';
import { templateSummarizer, type PtpEditFacts, type Summarizer } from '../ncci/summary.js';
import { defineRoute, type RouteDef } from '../route.js';
import { HcpcsSchema, IsoDateSchema, QueryBoolSchema, ReliabilitySchema, StateSchema } from '../schemas.js';

/**
 * Payer slugs the PTP lookup knows, and which NCCI file each reads. Medicaid programs read the
 * Medicaid NCCI edit set; Medicare and the commercial payers that adopt NCCI read Medicare's
 * (commercial payers get a warning: they may apply their own edits on top).
 */
export const PTP_PAYERS: Record<string, { file: 'medicare' | 'medicaid'; warning?: string }> = {
  medicare: { file: 'medicare' },
  medicare_ffs: { file: 'medicare' },
  medicare_advantage: { file: 'medicare', warning: 'Medicare Advantage plans follow NCCI but may add their own code-pair edits' },
  medicaid: { file: 'medicaid' },
  masshealth: { file: 'medicaid' },
  medi_cal: { file: 'medicaid' },
  uhc: { file: 'medicare', warning: 'commercial payer: Medicare NCCI edits are shown as the reference; the payer may apply its own edits' },
  aetna: { file: 'medicare', warning: 'commercial payer: Medicare NCCI edits are shown as the reference; the payer may apply its own edits' },
  anthem: { file: 'medicare', warning: 'commercial payer: Medicare NCCI edits are shown as the reference; the payer may apply its own edits' },
  cigna: { file: 'medicare', warning: 'commercial payer: Medicare NCCI edits are shown as the reference; the payer may apply its own edits' },
  humana: { file: 'medicare', warning: 'commercial payer: Medicare NCCI edits are shown as the reference; the payer may apply its own edits' },
};

const PayerSchema = z
  .string()
  .trim()
  .transform((s) => s.toLowerCase().replace(/-/g, '_'))
  .pipe(
    z.string().refine((s) => s in PTP_PAYERS, {
      message: `Unknown payer slug; known: ${Object.keys(PTP_PAYERS).join(', ')}`,
    }),
  );

/** Query of both PTP routes (names fixed in ARCHITECTURE.md). */
export const PtpQuerySchema = z.object({
  column1: HcpcsSchema,
  column2: HcpcsSchema,
  date_of_service: IsoDateSchema.optional(),
  include_summary: QueryBoolSchema.optional(),
  state: StateSchema.optional(),
  payer: PayerSchema.optional(),
});
export type PtpQuery = z.output<typeof PtpQuerySchema>;

const PatternSchema = z.object({ pattern: z.string(), category: z.string(), severity: z.string(), match: z.string() });
const FindingSchema = z.object({ code: z.string(), severity: z.string(), message: z.string(), match: z.string().optional() });

/** The spec's sentinel object. */
export const SentinelSchema = z.object({
  audit: z.object({
    composite_score: z.number(),
    security_score: z.number(),
    findings: z.array(FindingSchema),
    security_findings: z.array(FindingSchema),
    flags: z.array(z.string()),
    tier: z.string(),
  }),
  authority_level: z.string(),
  escalation_required: z.boolean(),
  patterns_detected: z.array(PatternSchema),
  trust_score: z.number(),
});

/**
 * The spec's "NCCI PTP edit", plus `edit_exists` / `edit_in_effect` / `status` / `message` so a
 * scrubber can tell "no edit for this pair" (`status: no_edit`) from "no data for that date"
 * (`reliability.degraded`) without parsing text.
 */
export const PtpEditSchema = z.object({
  col1_proc_cd: z.string(),
  col2_proc_cd: z.string(),
  edit_exists: z.boolean(),
  edit_in_effect: z.boolean(),
  status: z.enum(['active', 'deleted', 'not_yet_effective', 'not_applicable', 'no_edit', 'no_data']),
  message: z.string(),
  edit_scope: z.enum(['cms_medicare_national', 'cms_medicaid_national']),
  program: z.enum(['medicare', 'medicaid']),
  modifier: z.enum(['0', '1', '9']).nullable(),
  modifier_description: z.string(),
  ptp_type: z.enum(['prac', 'hosp']),
  version: z.string(),
  version_effective_dt: z.string(),
  version_posted_dt: z.string(),
  edit_effective_dt: z.string(),
  edit_delete_dt: z.string(),
  in_existence_prior_1996: z.boolean().nullable(),
  ptp_edit_rationale: z.string(),
  date_of_service: z.string(),
  payer: z.string(),
  state: z.string(),
  state_overlay: z.string(),
  ai_summary: z.string().optional(),
  summarizer: z.string().optional(),
  sentinel: SentinelSchema.optional(),
  reliability: ReliabilitySchema,
});
export type PtpEdit = z.infer<typeof PtpEditSchema>;

const MODIFIER_TEXT = { '0': 'not allowed', '1': 'allowed', '9': 'not applicable' } as const;

function messageOf(l: PtpLookup, a: string, b: string, dos: string): string {
  const r = l.row;
  switch (l.status) {
    case 'no_data':
      return `no ${l.dataset} version is loaded; the pair could not be checked`;
    case 'no_edit':
      return `no PTP edit pairs ${a} and ${b} in version ${l.choice!.ref.version}`;
    case 'active':
      return `edit in effect on ${dos}: ${r!.column2} is denied with ${r!.column1} unless the modifier indicator allows a modifier (indicator ${r!.modifier_indicator}: ${MODIFIER_TEXT[r!.modifier_indicator]})`;
    case 'deleted':
      return `the edit was deleted: it applied through ${r!.deletion_date}, not on ${dos}`;
    case 'not_yet_effective':
      return `the edit takes effect ${r!.effective_date}, after ${dos}`;
    case 'not_applicable':
      return 'modifier indicator 9: the edit was deleted back to its effective date and never applied';
  }
}

/** Builds the response from a lookup: pure, so the shape is testable without HTTP. */
export function toPtpEdit(
  l: PtpLookup,
  q: { a: string; b: string; dos: string; payer: string; state: string; program: 'medicare' | 'medicaid'; ptpType: 'prac' | 'hosp' },
  versionEffective: string,
): Omit<PtpEdit, 'reliability' | 'ai_summary' | 'sentinel' | 'summarizer'> {
  const r = l.row;
  return {
    col1_proc_cd: r?.column1 ?? q.a,
    col2_proc_cd: r?.column2 ?? q.b,
    edit_exists: r !== null,
    edit_in_effect: l.status === 'active',
    status: l.status,
    message: messageOf(l, q.a, q.b, q.dos),
    edit_scope: q.program === 'medicaid' ? 'cms_medicaid_national' : 'cms_medicare_national',
    program: q.program,
    modifier: r?.modifier_indicator ?? null,
    modifier_description: r ? MODIFIER_TEXT[r.modifier_indicator] : '',
    ptp_type: q.ptpType,
    version: l.choice?.ref.version ?? '',
    version_effective_dt: versionEffective,
    // CMS posts each release weeks before it takes effect; the files do not carry that date.
    version_posted_dt: '',
    edit_effective_dt: r?.effective_date ?? '',
    edit_delete_dt: r?.deletion_date ?? '',
    in_existence_prior_1996: r ? r.in_existence_prior_1996 : null,
    ptp_edit_rationale: r?.rationale ?? '',
    date_of_service: q.dos,
    payer: q.payer,
    state: q.state,
    // No state-specific PTP overlay data is loaded; the national edit is the answer.
    state_overlay: '',
  };
}

/** Effects the PTP routes take from outside (a summarizer; the template one by default). */
export interface PtpRouteDeps {
  summarizer?: Summarizer;
}

function ptpRoute(ptpType: 'prac' | 'hosp', deps: PtpRouteDeps): RouteDef {
  const summarizer = deps.summarizer ?? templateSummarizer;
  const table = ptpType === 'prac' ? 'practitioner' : 'hospital outpatient';
  return defineRoute({
    method: 'get',
    path: `/v1/ncci/ptp/${ptpType}`,
    operationId: ptpType === 'prac' ? 'getPtpPrac' : 'getPtpHosp',
    tag: 'ncci',
    summary: `NCCI procedure-to-procedure edit for a code pair, ${table} table`,
    description:
      'Codes in either order answer in CMS column order. `date_of_service` (default today) selects the quarterly version ' +
      'whose quarter contains it; without one, the nearest version answers with reliability.degraded. `status: no_edit` ' +
      'means the pair has no edit. `payer` medicaid/masshealth/medi_cal reads the Medicaid NCCI edit set. `state` is ' +
      'echoed; no state-specific PTP overlay is loaded (`state_overlay` is empty).',
    scope: 'knowledge',
    // date_of_service defaults to today, so cached answers are keyed by the day too.
    cache: 'daily',
    query: PtpQuerySchema,
    response: PtpEditSchema,
    handler: async ({ query, snapshot, now, reliability }) => {
      const dos = query.date_of_service ?? now().toISOString().slice(0, 10);
      const payer = query.payer ?? 'medicare';
      const payerInfo = PTP_PAYERS[payer]!;
      const program = payerInfo.file;
      const dataset = `${program === 'medicaid' ? 'medicaid' : 'ncci'}_ptp_${ptpType}` as PtpDatasetId;
      const a = query.column1;
      const b = query.column2;
      const l = await lookupPtpEdit(snapshot, dataset, a, b, dos);
      const warnings: string[] = [];
      if (payerInfo.warning) warnings.push(payerInfo.warning);
      if (l.choice?.warning) warnings.push(l.choice.warning);
      if (a === b) warnings.push('column1 and column2 are the same code; PTP edits pair two different codes');
      const versionEffective = l.choice?.ref.start ?? '';
      const body: PtpEdit = {
        ...toPtpEdit(l, { a, b, dos, payer, state: query.state ?? '', program, ptpType }, versionEffective),
        reliability: reliability(l.choice ? { [dataset]: l.choice.ref.version } : [dataset], {
          warnings,
          degraded: l.choice ? !l.choice.covers : true,
        }),
      };
      if (query.include_summary) {
        const facts: PtpEditFacts = {
          col1_proc_cd: body.col1_proc_cd,
          col2_proc_cd: body.col2_proc_cd,
          modifier: body.modifier,
          status: body.status,
          edit_effective_dt: body.edit_effective_dt,
          edit_delete_dt: body.edit_delete_dt,
          ptp_edit_rationale: body.ptp_edit_rationale,
          date_of_service: dos,
          ptp_type: ptpType,
          program,
          version: body.version,
        };
        const summary = await summarizer.summarize(facts);
        const sentinel = auditSummary(summary, facts);
        // A summary carrying links, identifiers or instructions is withheld, not passed on.
        body.ai_summary = sentinel.audit.security_findings.length ? '' : summary;
        body.summarizer = summarizer.name;
        body.sentinel = sentinel;
        if (sentinel.escalation_required) body.reliability.warnings.push(`the AI summary failed the sentinel audit (${sentinel.audit.flags.join(', ')}); rely on the edit fields`);
      }
      return body;
    },
  });
}

/** Builds the PTP routes with injected effects (a different summarizer in tests or later an LLM). */
export function makeNcciPtpRoutes(deps: PtpRouteDeps = {}): RouteDef[] {
  return [ptpRoute('prac', deps), ptpRoute('hosp', deps)];
}

/** `GET /v1/ncci/ptp/prac` and `GET /v1/ncci/ptp/hosp` with the default (template) summarizer. */
export const ncciPtpRoutes: RouteDef[] = makeNcciPtpRoutes();
