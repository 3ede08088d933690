import { findMedicareMues } from '../../datasets/_ncci_mue/queries.js';
import { selectVersion } from '../../datasets/_shared/versions.js';
import { lookupAocEdits } from '../../datasets/ncci_aoc/queries.js';
import { countPtpEditsForCode, type PtpDatasetId } from '../../datasets/_ncci_ptp/queries.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { getCodeLookup, getCrosswalks } from '../codes/service.js';
import { paymentFor } from '../payment/service.js';
import { Trace } from '../trace.js';
import { payerKnowledge } from '../../datasets/payers/queries.js';
import { matchingPriorAuthRules } from '../payers/service.js';
import { inForce } from '../prior_auth/resolve.js';
import { AgentError, defineAgent, type AgentContext } from './define.js';
import { CODE_IN_TEXT, CodeResearchInputSchema, CodeResearchResultSchema } from './schemas.js';
import { conclude, gather, type Findings } from './evidence.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { isDatasetId, type DatasetId } from '../../datasets/registry.js';

/**
 * Code research: what the loaded datasets say about one CPT/HCPCS code, every fact cited to
 * the dataset version it came from: descriptor, status and RVUs, the national (or the
 * facility's) payment, the NCCI edits that bind it (PTP edits where it is column 1 or 2, in
 * force today), MUEs, add-on relations and crosswalks. Deterministic; a writer only phrases it.
 * Each fact comes from the function the REST routes call (`getCodeLookup`, `paymentFor`, the
 * NCCI and MUE queries, `getCrosswalks`) or the payers area's `matchingPriorAuthRules`.
 */
export const codeResearch = defineAgent({
  type: 'code_research',
  input: CodeResearchInputSchema,
  output: CodeResearchResultSchema,
  summary: 'Research a CPT/HCPCS code: descriptor, RVUs, payment, binding NCCI edits, MUE, add-on relations, crosswalks',
  description: 'Every fact in the result is cited to the dataset version it came from.',
  examples: [
    { summary: 'what limits apply to a code', body: { query: 'What limits apply to billing 99214 twice?', code: '99214' } },
    { summary: 'a code and a short question', body: { code: '99213', query: 'units per day?' } },
    { summary: 'a question without a code', status: 422, body: { query: 'no code here' } },
  ],
  async run(input, ctx) {
    const code = (input.code ?? CODE_IN_TEXT.exec(input.query ?? '')?.[0] ?? '').toUpperCase();
    if (!code) throw new AgentError('no_code', 'the job names no CPT/HCPCS code');
    const r: Research = { snapshot: ctx.snapshot, code, ccn: input.ccn, today: todayOf(ctx.now()), ctx, ...gather(ctx) };
    const pfs = await descriptorFact(r);
    for (const fact of FACTS) await fact(r);
    const conclusion = pfs
      ? `${code} (${pfs.descriptor}) is a PFS status ${pfs.status} code; ${r.evidence.length} cited facts follow.`
      : `${code} is not on the physician fee schedule; ${r.evidence.length} cited facts follow.`;
    return { code, descriptor: pfs?.descriptor ?? null, status_code: pfs?.status ?? null, ...(await conclude(r, 'code_research', conclusion, ctx)) };
  },
});

/** One code's research in progress: what it reads and what it has found. */
interface Research extends Findings {
  snapshot: SnapshotReader;
  code: string;
  ccn: string | undefined;
  today: string;
  ctx: AgentContext;
}

/** Its PFS descriptor, status and RVUs (`GET /v1/codes/{code}`); null when no loaded RVU release has it. */
async function descriptorFact({ snapshot, code, evidence, trace }: Research): Promise<{ descriptor: string; status: string } | null> {
  try {
    const { lookup, version } = await getCodeLookup(snapshot, code);
    const head = lookup.rvus.filter((r) => r.version === version && r.modifier === '')[0] ?? lookup.rvus.at(-1)!;
    evidence.push({
      kind: 'descriptor',
      statement: `${code} is "${lookup.description}", PFS status ${lookup.status_code}${lookup.status_description ? ` (${lookup.status_description})` : ''}; work RVU ${head.work_rvu ?? 'n/a'}, non-facility PE RVU ${head.non_fac_pe_rvu ?? 'n/a'}, facility PE RVU ${head.facility_pe_rvu ?? 'n/a'}, malpractice RVU ${head.mp_rvu ?? 'n/a'}, global days ${head.global_days || 'n/a'}.`,
      facts: { description: lookup.description, status_code: lookup.status_code, modifiers: lookup.modifiers, rvus: head },
      citation: trace.cite('mpfs_rvu', version),
    });
    return { descriptor: lookup.description, status: lookup.status_code };
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    trace.warnings.push(`${code} is not in any loaded PFS RVU release`);
    return null;
  }
}

/** The payment today, national or at the facility, with the tenant's registration: `GET /v1/codes/{code}/payment`'s composition. */
async function paymentFact({ snapshot, code, ccn, today, ctx, evidence, trace }: Research): Promise<void> {
  try {
    const payTrace = new Trace(snapshot, ctx.now);
    const c = await paymentFor(snapshot, ctx.tenant, { code, ccn, date_of_service: today }, today, payTrace);
    const used = payTrace.versions;
    if (c.applicable_blocks.length) {
      const where = ccn ? `at facility ${ccn}` : 'nationally (GPCI 1.000)';
      evidence.push({
        kind: 'payment',
        statement: `Estimated Medicare payment ${where} on ${today}: $${c.estimated_payment.toFixed(2)} (${c.applicable_blocks.join(' + ')}).`,
        facts: { estimated_payment: c.estimated_payment, applicable_blocks: c.applicable_blocks, physician: c.physician, outpatient_facility: c.outpatient_facility, lab: c.lab, dme: c.dme, conversion_factor: c.conversion_factor },
        citation: c.physician ? trace.cite('mpfs_rvu', used.mpfs_rvu ?? '') : null,
      });
      trace.useAll(used);
    }
    trace.warnings.push(...payTrace.warnings.filter((w) => !/national GPCIs/.test(w)));
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
  }
}

/** The NCCI PTP edits in force today with the code in column 1 or 2, practitioner then hospital outpatient. */
async function ptpFacts({ snapshot, code, today, evidence, trace }: Research): Promise<void> {
  for (const [dataset, setting] of [
    ['ncci_ptp_prac', 'practitioner'],
    ['ncci_ptp_hosp', 'hospital outpatient'],
  ] as [PtpDatasetId, string][]) {
    const pick = selectVersion(dataset, snapshot.versions(dataset), { rule: 'quarter', date: today });
    if (!pick) continue;
    if (pick.warning) trace.warnings.push(pick.warning);
    const n = await countPtpEditsForCode(snapshot, dataset, pick.version.version, code, today);
    evidence.push({
      kind: `ptp_${setting === 'practitioner' ? 'prac' : 'hosp'}`,
      statement: `NCCI ${setting} PTP edits in force on ${today}: ${n.as_column1} with ${code} in column 1 (the other code is denied), ${n.as_column2} with ${code} in column 2.`,
      facts: { as_column1: n.as_column1, as_column2: n.as_column2, sample: n.sample.map((r) => ({ column1: r.column1, column2: r.column2, modifier_indicator: r.modifier_indicator, effective_date: r.effective_date })) },
      citation: trace.cite(dataset, pick.version.version),
    });
  }
}

/** Its Medicare MUEs (`GET /v1/ncci/mue/{code}`'s lookup). */
async function mueFacts({ snapshot, code, today, evidence, trace }: Research): Promise<void> {
  const mues = await findMedicareMues(snapshot, code, today);
  for (const l of mues.lookups) {
    if (!l.row) continue;
    evidence.push({
      kind: `mue_${l.mue_type}`,
      statement: `MUE (${l.mue_type}): at most ${l.row.mue_value} unit(s), adjudication indicator ${l.row.mue_adj_ind} (${l.row.mue_adj_ind_label}).`,
      facts: { mue_value: l.row.mue_value, mue_adj_ind: l.row.mue_adj_ind, rationale: l.row.mue_rationale },
      citation: isDatasetId(l.used.dataset) ? trace.cite(l.used.dataset, l.used.version) : null,
    });
  }
  trace.warnings.push(...mues.warnings);
}

/** Its add-on code relations (`GET /v1/ncci/aoc/{code}`): the primary codes it is reported with, or the add-ons it takes. */
async function addOnFact({ snapshot, code, today, evidence, trace }: Research): Promise<void> {
  const aoc = await lookupAocEdits(snapshot, code, today);
  if (!aoc || (!aoc.as_addon.length && !aoc.as_primary.length)) return;
  evidence.push({
    kind: 'add_on',
    statement: aoc.as_addon.length
      ? `${code} is an add-on code: it is reported with a primary code (${aoc.as_addon.length} primary code edit(s)).`
      : `${code} is a primary code for ${aoc.as_primary.length} add-on code(s).`,
    facts: { primary_codes: aoc.as_addon.map((r) => r.primary_code).slice(0, 20), add_on_codes: aoc.as_primary.map((r) => r.addon_code).slice(0, 20) },
    citation: trace.cite('ncci_aoc', aoc.used.version),
  });
}

/** Its crosswalks (`GET /v1/codes/crosswalk/{code}`): the OPPS APC and the NDCs billed under it. */
async function crosswalkFact({ snapshot, code, evidence, trace }: Research): Promise<void> {
  try {
    const x = await getCrosswalks(snapshot, code);
    if (!x.crosswalks.length) return;
    const apc = x.crosswalks.find((c) => c.target_system === 'APC');
    const ndcs = x.crosswalks.filter((c) => c.target_system === 'NDC').length;
    evidence.push({
      kind: 'crosswalk',
      statement: [apc ? `OPPS pays ${code} under APC ${apc.target_code}.` : '', ndcs ? `${ndcs} NDC(s) are billed under ${code}.` : ''].filter(Boolean).join(' '),
      facts: { crosswalks: x.crosswalks.slice(0, 20) },
      citation: (Object.entries(x.used) as [DatasetId, string][]).map(([d, v]) => trace.cite(d, v))[0] ?? null,
    });
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
  }
}

/** Every payer's prior-auth rules in force today that name the code or its service category (`matchingPriorAuthRules` of the payers area). */
async function priorAuthFact({ snapshot, code, today, evidence, trace }: Research): Promise<void> {
  const k = await payerKnowledge(snapshot);
  const pa = [...k.priorAuth.keys()].flatMap((slug) => matchingPriorAuthRules(k, slug, code, {}).filter((r) => inForce(r, today)));
  if (pa.length) {
    evidence.push({
      kind: 'prior_auth',
      statement: `Prior-authorization rules naming ${code} or its service category: ${pa.map((r) => `${r.payer_slug} ${r.rule_id} (${r.pa_required ? 'required' : 'not required'}${r.place_of_service.length ? ` at place of service ${r.place_of_service.join('/')}` : ''}${r.service_category ? `, ${r.service_category.replace(/_/g, ' ')}` : ''})`).join('; ')}.`,
      facts: { rules: pa.map((r) => ({ payer_slug: r.payer_slug, rule_id: r.rule_id, pa_required: r.pa_required, service_category: r.service_category, place_of_service: r.place_of_service, scope: r.scope, citation: r.citation })) },
      citation: trace.cite('payers', k.version),
    });
  } else if (k.version) {
    trace.warnings.push(`prior-auth: no loaded payer rule names ${code} or a service category it falls in (GET /v1/prior-auth/check answers per payer)`);
  }
}

/** The facts after the descriptor, in the order the evidence lists them. */
const FACTS: readonly ((r: Research) => Promise<void>)[] = [paymentFact, ptpFacts, mueFacts, addOnFact, crosswalkFact, priorAuthFact];
