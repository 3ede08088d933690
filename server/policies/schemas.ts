import { z } from 'zod';
import { CitationSchema } from '../../datasets/payers/schema.js';
import { HcpcsSchema, IsoDateSchema, PayerRefSchema, PlanTypeSchema, ReliabilitySchema, StateSchema } from '../schemas.js';

/**
 * The spec's policy rule (payment composition `policy_rules[]`, claim intelligence, knowledge
 * resolve L4): one cited rule of a policy document for a code. Medicare documents (LCDs, billing
 * articles, NCDs) and the payers dataset's curated commercial rules map onto the same row.
 */
export const PolicyRuleSchema = z
  .object({
    code: z.string(),
    doc_id: z.string().describe('L/A number of an LCD or article, `NCD <section>`, or the payer\'s policy id'),
    kind: z.string().describe('`lcd`, `article`, `ncd`, or the payer rule\'s kind (`coverage`, `billing` ...)'),
    pdf_uri: z.string().describe('the document: its MCD page, or the payer\'s PDF'),
    rule_text: z.string(),
    source_key: z.string().describe('`cms_mcd` for Medicare documents'),
    action: z.string().optional(),
    change_type: z.string().optional(),
    effective_from: z.string().optional(),
    lineage_root_doc_id: z.string().optional(),
    parent_doc_id: z.string().optional().describe('an article\'s LCD, or the document a commercial rule replaced last'),
    trigger_condition: z.string().optional(),
    discovery_depth: z.int().describe('0: the document lists the code; 1: found through one that does (an LCD through its billing article)'),
    license_kind: z.string(),
    payer_slug: z.string(),
    rule_id: z.string().optional(),
    document_version: z.int().optional(),
    illustrative: z.boolean().describe('true for illustrative seed rows (no real MCD code-level export loaded): do not rely on them'),
    jurisdiction_resolved: z
      .boolean()
      .optional()
      .describe('Medicare LCDs and articles: false when the contractor holds several jurisdictions (or none the curated table places), so the document may not apply in a given state'),
    jurisdictions: z.array(z.string()).optional(),
    citation: CitationSchema.optional(),
  })
  .meta({ id: 'PolicyRule' });
export type PolicyRule = z.output<typeof PolicyRuleSchema>;

export const PolicyDocumentSchema = z
  .object({
    payer_slug: z.string(),
    doc_id: z.string(),
    kind: z.string(),
    title: z.string(),
    version: z.int().nullable().describe('the document version in force today (MCD version number); null for curated commercial documents'),
    effective_date: z.string().nullable(),
    retirement_date: z.string().nullable(),
    url: z.string().nullable(),
    codes: z.array(z.string()).describe('the CPT/HCPCS codes it lists (loaded code-level rows only; an LCD: its own and its articles\'; an NCD: those its text names)'),
    codes_loaded: z.boolean().describe('false: no code-level rows of this document are loaded (the MCD listing names none)'),
    contractors: z.array(z.string()),
    jurisdictions: z.array(z.string()),
    jurisdiction_resolved: z.boolean().nullable().describe('null for NCDs (national) and commercial documents'),
    illustrative: z.boolean(),
    sources: z.array(z.string()).describe('the datasets the document comes from'),
  })
  .meta({ id: 'PolicyDocument' });
export type PolicyDocument = z.output<typeof PolicyDocumentSchema>;

export const PolicyQuerySchema = z.object({
  payer: PayerRefSchema.optional().describe('payer slug or alias: `medicare_ffs` lists LCDs, articles and NCDs; a commercial payer its curated documents'),
  code: HcpcsSchema.optional(),
  state: StateSchema.optional().describe('Medicare: keep documents of the MAC jurisdictions of the state (may over-include, see jurisdiction_resolved)'),
  plan_type: PlanTypeSchema.optional(),
  q: z.string().trim().min(2, 'q must be at least 2 characters').max(100).optional().describe('words of the title or id'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});

export const PolicyListSchema = z
  .object({ results: z.array(PolicyDocumentSchema), next_cursor: z.string().nullable(), total: z.int(), reliability: ReliabilitySchema })
  .meta({ id: 'PolicyList' });

export const PolicyChangeSchema = z
  .object({
    id: z.string(),
    date: z.string().describe('the effective date of the change (the load date when it has none): the feed\'s order'),
    payer_slug: z.string(),
    doc_id: z.string(),
    kind: z.string(),
    change_type: z.enum(['new', 'revised', 'retired']),
    from_version: z.int().nullable(),
    to_version: z.int().nullable(),
    effective_date: z.string().nullable(),
    title: z.string(),
    url: z.string().nullable(),
    dataset: z.string(),
    dataset_from_version: z.string(),
    dataset_to_version: z.string(),
  })
  .meta({ id: 'PolicyChange' });
export type PolicyChange = z.output<typeof PolicyChangeSchema>;

export const PolicyChangeQuerySchema = z.object({
  since: IsoDateSchema.optional().describe('changes effective on or after this date'),
  payer: PayerRefSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});

export const PolicyChangeListSchema = z
  .object({ changes: z.array(PolicyChangeSchema), next_cursor: z.string().nullable(), reliability: ReliabilitySchema })
  .meta({ id: 'PolicyChangeList' });
