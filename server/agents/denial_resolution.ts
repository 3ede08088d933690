import { payerKnowledge, type PayerKnowledge } from '../../datasets/payers/queries.js';
import type { DenialPatternRow, PayerRow } from '../../datasets/payers/schema.js';
import { x12Index, x12StatusOn, type X12Index } from '../../datasets/x12_codes/queries.js';
import type { X12CodeRow } from '../../datasets/x12_codes/dataset.js';
import { resolveFacility, type Facility } from '../facilities/service.js';
import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { coverageIndex, findArticlesForCode } from '../../datasets/mcd_coverage/queries.js';
import { appealDeadlines, receiptConvention } from '../deadlines/deadlines.js';
import { remedyDeadline } from '../denials/deadline.js';
import { classifyDenial, denialFacts, rarcMeanings, withDeadline, type DenialRemedy } from '../denials/remedy.js';
import { denialCodesInText, parseDenialCode, payerWarnings, resolvePayer } from '../payers/service.js';
import { conclude, gather, type Findings } from './evidence.js';
import { AgentError, defineAgent, type AgentContext } from './define.js';
import { DenialResolutionInputSchema, DenialResolutionResultSchema, type DenialResolutionInput, type DenialResolutionResult } from './schemas.js';

/**
 * Denial resolution: a CARC/RARC with its group code explained from the X12 lists (as of the
 * denial's date: a code deactivated by then says so, with its stop date), the payer's curated
 * denial pattern for it (root cause, documentation, steps), the one remedy `classifyDenial` gives
 * (with the line's modifiers), the appeal deadlines from the payer's appeal rules when the payer is
 * known (the facility's state, from `ccn`, applies state-specific rules), and the payer's other
 * patterns of the same category. Every statement cites the dataset version it came from. Each step
 * calls what the REST routes and the 835 explanation call: `parseDenialCode`, `resolveFacility`,
 * `resolvePayer`, `classifyDenial` with `remedyDeadline`, `appealDeadlines`.
 */
export const denialResolution = defineAgent({
  type: 'denial_resolution',
  input: DenialResolutionInputSchema,
  output: DenialResolutionResultSchema,
  summary: 'Resolve a denial: CARC/RARC and group explained, root cause, recommended action, appeal deadline, documents, similar patterns',
  description:
    'denial_code takes a CARC (50), group+CARC (CO-50) or RARC (N290); carc/rarc fields win when both are given; with none of the three, a code the query names (CO-50, CARC 16, N290) is used, echoed in denial_code and said in warnings. With payer, the payer\'s curated pattern and appeal levels are used (deadlines from denial_date, default today). The codes are checked against the X12 lists as of denial_date (a code deactivated by then is flagged with its stop date). `modifiers` (the denied line\'s) decide Medicare liability: GA (ABN on file), GZ (no ABN), GY (statutorily excluded). `ccn` names the billing facility: echoed with its state and MAC, its state applies state-specific filing and appeal rules.',
  examples: [
    { summary: 'a medical necessity denial from Medicare', body: { denial_code: 'CO-50', payer: 'medicare', denial_date: '2026-03-02', code: '64490' } },
    { summary: 'a remark code alone', body: { denial_code: 'N290' } },
    { summary: 'the code written in the question only', body: { query: 'Medicare denied 64490 as CO-50: can we appeal?', payer: 'medicare', denial_date: '2026-03-02' } },
    { summary: 'a Medicare medical necessity denial without an ABN, for a registered facility', body: { denial_code: 'CO-50', modifiers: ['GZ'], payer: 'medicare', denial_date: '2026-03-02', ccn: '050454' } },
    { summary: 'an unknown group code', status: 422, body: { group_code: 'ZZ' } },
  ],
  async run(input, ctx) {
    const f = gather(ctx);
    const codes = denialCodesOf(input, f.trace.warnings);
    const x = await x12Index(ctx.snapshot);
    const explanation = explainCodes(x, codes, input.denial_date ?? todayOf(ctx.now()), f);
    const facility = await facilityOf(input.ccn, ctx, f.trace.warnings);
    const k = await payerKnowledge(ctx.snapshot);
    const payer = payerOf(k, input.payer, f.trace.warnings);
    const { pattern, similar } = patternOf(k, payer, codes, f);
    const { remedy, appeal } = remedyOf({ k, x, payer, codes, input, state: facility?.effective.state ?? undefined, asOf: todayOf(ctx.now()) }, f);
    const coverage = await coverageOf(ctx.snapshot, input, payer, () => todayOf(ctx.now()), f);
    return {
      claim_id: input.claim_id ?? null,
      denial_code: input.denial_code ?? codes.fromQuery,
      carc: codes.carc,
      rarc: codes.rarc,
      group_code: codes.group,
      payer_slug: payer?.slug ?? null,
      ccn: input.ccn ?? null,
      facility: facility ? { ccn: facility.ccn, name: facility.effective.name, state: facility.effective.state, mac: facility.reference?.mac ?? null } : null,
      modifiers: input.modifiers ?? [],
      explanation,
      denial_category: pattern?.denial_category ?? null,
      root_cause: pattern?.root_cause ?? null,
      recommended_action: remedy.remedy,
      remedy,
      resolution_steps: pattern ? pattern.resolution_steps : [`${remedy.reason[0]!.toUpperCase()}${remedy.reason.slice(1)}.`],
      required_documents: pattern?.documentation_needed ?? [],
      auto_appealable: pattern?.auto_appealable ?? false,
      appeal,
      coverage,
      similar_patterns: similar.map((d) => ({ denial_code: d.group_code ? `${d.group_code}-${d.carc_code}` : d.carc_code, remark_code: d.remark_code, denial_category: d.denial_category, root_cause: d.root_cause })),
      ...(await conclude(f, 'denial_resolution', conclusionOf(codes, remedy, pattern, payer), ctx)),
    };
  },
});

/** The codes a denial names: CARC (leading zeros dropped), RARC, group, and what the query gave when no field did. */
interface DenialCodes {
  carc: string | null;
  rarc: string | null;
  group: string | null;
  /** `CO-50/N290` as read from the query when no code field was given (echoed as `denial_code`). */
  fromQuery: string | null;
}

/**
 * The codes of the job: explicit carc/rarc win over denial_code (said in the warnings); with no
 * code field, the codes the query names (as code research takes a code from its query), echoed and
 * said. No CARC or RARC at all is the job's error.
 */
function denialCodesOf(input: DenialResolutionInput, warnings: string[]): DenialCodes {
  let parsed: ReturnType<typeof parseDenialCode> | null = null;
  try {
    parsed = input.denial_code ? parseDenialCode(input.denial_code) : null;
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    if (!input.carc && !input.rarc) throw new AgentError('bad_denial_code', `${input.denial_code} is not a CARC (50), group+CARC (CO-50) or RARC (N290)`);
  }
  const asked = !input.denial_code && !input.carc && !input.rarc && input.query ? denialCodesInText(input.query) : null;
  let carc = input.carc ?? (parsed && parsed.matched_as !== 'rarc' ? parsed.code : null) ?? asked?.carc ?? null;
  const rarc = input.rarc ?? (parsed?.matched_as === 'rarc' ? parsed.code : null) ?? asked?.rarc ?? null;
  if (carc) carc = carc.replace(/^0+(?=\d)/, '');
  const group = input.group_code ?? parsed?.group_code ?? asked?.group_code ?? null;
  const fromQuery = asked ? [asked.carc ? [asked.group_code, asked.carc].filter(Boolean).join('-') : null, asked.rarc].filter(Boolean).join('/') : null;
  if (fromQuery) warnings.push(`no denial_code, carc or rarc given: ${fromQuery} was read from the query`);
  if (parsed && (input.carc || input.rarc)) warnings.push(`carc/rarc given: they win over denial_code ${input.denial_code}`);
  if (!carc && !rarc) throw new AgentError('no_denial_code', 'the job names no CARC or RARC');
  return { carc, rarc, group, fromQuery };
}

/**
 * The codes explained from the X12 lists, each with its status on `codesOn` (the lists' start and
 * stop dates govern a code's use on a remittance: checked on the denial's date), cited; a code the
 * loaded lists lack is a warning.
 */
function explainCodes(x: X12Index, { carc, rarc, group }: DenialCodes, codesOn: string, { evidence, trace }: Findings): DenialResolutionResult['explanation'] {
  const carcRow = carc ? x.byKey.get(`carc:${carc}`) : undefined;
  const rarcRow = rarc ? x.byKey.get(`rarc:${rarc}`) : undefined;
  const groupRow = group ? x.byKey.get(`group:${group}`) : undefined;
  const explain = (r: X12CodeRow | undefined) => {
    if (!r) return null;
    const st = x12StatusOn(r, codesOn);
    if (st.status !== 'active') trace.warnings.push(st.note);
    return { code: r.code, description: r.description, start_date: r.start_date, stop_date: r.stop_date, status: st.status, status_note: st.note };
  };
  const explanation = { codes_checked_on: codesOn, carc: explain(carcRow), rarc: explain(rarcRow), group: groupRow ? { code: groupRow.code, description: groupRow.description } : null };
  if (x.version) {
    const parts = [
      carcRow ? `CARC ${carc}: "${carcRow.description}"` : '',
      rarcRow ? `RARC ${rarc}: "${rarcRow.description}"` : '',
      groupRow ? `group ${group}: "${groupRow.description}"` : '',
    ].filter(Boolean);
    if (parts.length) evidence.push({ kind: 'x12', statement: `${parts.join('; ')}.`, facts: { carc: carcRow ?? null, rarc: rarcRow ?? null, group: groupRow ?? null }, citation: trace.cite('x12_codes', x.version) });
  }
  for (const [c, r, list] of [[carc, carcRow, 'CARC'], [rarc, rarcRow, 'RARC']] as const) {
    if (c && !r) trace.warnings.push(`${list} ${c} is not in the loaded X12 lists (x12_codes ${x.version || 'not loaded'}; the seed carries a partial, cited set)`);
  }
  return explanation;
}

/** The billing facility `ccn` names (the tenant's registration first): its state applies state rules; unknown is a warning. */
async function facilityOf(ccn: string | undefined, ctx: AgentContext, warnings: string[]): Promise<Facility | null> {
  if (!ccn) return null;
  try {
    return await resolveFacility(ctx.snapshot, ctx.tenant, ccn, 'either');
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    warnings.push(`ccn ${ccn}: ${e.message}; answered without the facility's state`);
    return null;
  }
}

/** The payer the job names (slug or alias); none given or unknown is a warning and no payer rules. */
function payerOf(k: PayerKnowledge, ref: string | undefined, warnings: string[]): PayerRow | null {
  if (!ref) {
    warnings.push('no payer given: no payer denial pattern or appeal deadline; pass payer (slug or alias) for them');
    return null;
  }
  try {
    return resolvePayer(k, ref);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    warnings.push(`payer ${ref}: ${e.message}; answered without payer rules`);
    return null;
  }
}

/**
 * The payer's curated pattern for the codes (CARC with its RARC, then the CARC alone, then the
 * RARC alone; a pattern's group must agree when both have one) and its other patterns of the same
 * category.
 */
function patternOf(k: PayerKnowledge, payer: PayerRow | null, { carc, rarc, group }: DenialCodes, { evidence, trace }: Findings): { pattern: DenialPatternRow | undefined; similar: DenialPatternRow[] } {
  if (!payer) return { pattern: undefined, similar: [] };
  trace.warnings.push(...payerWarnings(payer));
  const rows = k.denials.get(payer.slug) ?? [];
  const pattern =
    rows.find((d) => carc !== null && d.carc_code === carc && (rarc === null || d.remark_code === rarc) && (!group || d.group_code === null || d.group_code === group)) ??
    rows.find((d) => carc !== null && d.carc_code === carc && (!group || d.group_code === null || d.group_code === group)) ??
    rows.find((d) => rarc !== null && d.remark_code === rarc);
  if (!pattern) {
    trace.warnings.push(`no curated ${payer.slug} denial pattern for ${carc ? `CARC ${carc}` : `RARC ${rarc}`}`);
    return { pattern, similar: [] };
  }
  evidence.push({
    kind: 'denial_pattern',
    statement: `${payer.name} pattern for ${pattern.group_code ? `${pattern.group_code}-` : ''}${pattern.carc_code}${pattern.remark_code ? `/${pattern.remark_code}` : ''} (${pattern.denial_category}): ${pattern.root_cause}`,
    facts: { ...pattern },
    citation: trace.cite('payers', k.version),
  });
  return { pattern, similar: rows.filter((d) => d !== pattern && d.denial_category === pattern.denial_category) };
}

/**
 * The remedy of the denial rules table (`classifyDenial`, the payer's patterns included), dated by
 * `remedyDeadline` from the payer's rules, and the payer's appeal levels from the denial date
 * (none when the remedy has no appeal rights).
 */
function remedyOf(
  o: { k: PayerKnowledge; x: X12Index; payer: PayerRow | null; codes: DenialCodes; input: DenialResolutionInput; state: string | undefined; asOf: string },
  { evidence, trace }: Findings,
): { remedy: DenialRemedy; appeal: DenialResolutionResult['appeal'] } {
  const { k, x, payer, input, state, asOf } = o;
  const { group, carc, rarc } = o.codes;
  const facts = denialFacts({ group, carc, rarcs: rarc ? [rarc] : [], remarks: rarcMeanings(rarc ? [rarc] : [], (r) => x.byKey.get(`rarc:${r}`)?.description), payerType: payer?.payer_type ?? null, payer: payer?.slug ?? null, modifiers: input.modifiers ?? [] });
  const denialDate = input.denial_date ?? asOf;
  const dated = remedyDeadline(classifyDenial(facts, k), { payers: k, payer, dateOfService: input.date_of_service ?? null, noticeDate: denialDate, determinationDate: denialDate, asOf, state });
  const rule = dated.choice;
  const remedy = withDeadline(rule, dated.deadline);
  if (!payer) return { remedy, appeal: null };
  if (rule.deadline === 'resubmit_by' && !input.date_of_service) trace.warnings.push('no date_of_service given: resubmit_by (the timely-filing limit, which keeps running) cannot be dated');
  if (rule.deadline && rule.deadline !== 'resubmit_by' && !input.denial_date) trace.warnings.push(`no denial_date given: the ${rule.deadline.replace(/_/g, ' ')} date counts from today (${denialDate})`);
  if (remedy.deadline?.date) evidence.push({ kind: 'deadline', statement: `${remedy.deadline.kind.replace(/_/g, ' ')} ${remedy.deadline.date} (${rule.rule_id}).`, facts: { ...remedy.deadline }, citation: trace.cite('payers', k.version) });
  const levels = rule.appeal_rights === 'no' ? [] : (k.appeals.get(payer.slug) ?? []);
  if (levels.length) {
    const deadlines = appealDeadlines(levels, { denial_date: denialDate, as_of: asOf, state });
    return { remedy, appeal: { denial_date: denialDate, receipt_convention: receiptConvention(levels), conditional: rule.appeal_rights === 'conditional', condition: rule.appeal_condition, levels: deadlines } };
  }
  if (rule.appeal_rights !== 'no') trace.warnings.push(`no appeal levels are loaded for ${payer.slug}`);
  return { remedy, appeal: null };
}

/** The billed code's coverage articles (Medicare): a medical-necessity denial's evidence for an appeal. */
async function coverageOf(snapshot: SnapshotReader, input: DenialResolutionInput, payer: PayerRow | null, today: () => string, { evidence, trace }: Findings): Promise<DenialResolutionResult['coverage']> {
  const coverage: DenialResolutionResult['coverage'] = [];
  if (!input.code) return coverage;
  if (payer && payer.payer_type !== 'medicare') {
    trace.warnings.push(`code ${input.code}: coverage articles are Medicare's; ${payer.slug}'s own medical policies are not in the loaded knowledge`);
    return coverage;
  }
  const idx = await coverageIndex(snapshot);
  if (!idx) {
    trace.warnings.push('mcd_coverage is not loaded: no coverage article could be checked for the billed code');
    return coverage;
  }
  for (const { article: a, lcds } of findArticlesForCode(idx, input.code, input.date_of_service ?? today())) {
    coverage.push({ article_id: a.display_id, article_version: a.article_version, title: a.title, lcds: lcds.map((l) => ({ lcd_id: l.display_id, lcd_version: l.lcd_version, title: l.title })), documentation_requirements: documentationOf(a, lcds) });
    evidence.push({ kind: 'coverage_article', statement: `${a.display_id} v${a.article_version} "${a.title}" lists ${input.code}${lcds.length ? ` (LCD ${lcds.map((l) => l.display_id).join(', ')})` : ''}: its documentation requirements support an appeal of a medical-necessity denial.`, facts: { article_id: a.display_id, lcds: lcds.map((l) => l.display_id) }, citation: trace.cite('mcd_coverage', idx.version) });
  }
  if (coverage.length === 0) trace.warnings.push(`no loaded LCD billing article lists ${input.code}`);
  return coverage;
}

/**
 * An article's documentation requirements: the article's own (older MCD layouts), else those of
 * its LCDs (a real MCD download's article table has none; its LCDs' doc_reqs hold them).
 */
function documentationOf(a: { doc_reqs?: string | null }, lcds: { doc_reqs?: string | null }[]): string | null {
  const texts = [a.doc_reqs, ...lcds.map((l) => l.doc_reqs)].filter((x): x is string => !!x);
  return texts.length ? [...new Set(texts)].join('\n\n') : null;
}

/** The finding in one sentence: the codes, the action (and the payer's category), the deadline, the appeal rights. */
function conclusionOf({ carc, rarc, group }: DenialCodes, remedy: DenialRemedy, pattern: DenialPatternRow | undefined, payer: PayerRow | null): string {
  const code = [group, carc].filter(Boolean).join('-') || rarc!;
  const appealNote = remedy.appeal_rights === 'no' ? '; no appeal rights' : remedy.appeal_rights === 'conditional' && remedy.appeal_condition ? `; appeal ${remedy.appeal_condition}` : '';
  return `${code}${rarc && carc ? `/${rarc}` : ''}: recommended action ${remedy.remedy.replace(/_/g, ' ')}${pattern ? ` (${payer!.name}: ${pattern.denial_category.replace(/_/g, ' ')})` : ''}${remedy.deadline?.date ? `; ${remedy.deadline.kind.replace(/_/g, ' ')} ${remedy.deadline.date}` : ''}${appealNote}.`;
}
