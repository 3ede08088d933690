import { payerKnowledge } from '../../datasets/payers/queries.js';
import type { DenialPatternRow } from '../../datasets/payers/schema.js';
import { x12Index, x12StatusOn } from '../../datasets/x12_codes/queries.js';
import type { X12CodeRow } from '../../datasets/x12_codes/dataset.js';
import { resolveFacility, type Facility } from '../facilities/service.js';
import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { coverageIndex, findArticlesForCode } from '../../datasets/mcd_coverage/queries.js';
import { appealDeadlines, receiptConvention } from '../deadlines/deadlines.js';
import { remedyDeadline } from '../denials/deadline.js';
import { classifyDenial, denialFacts, rarcMeanings, withDeadline } from '../denials/remedy.js';
import { denialCodesInText, parseDenialCode, payerWarnings, resolvePayer } from '../payers/service.js';
import { conclude, gather, type AgentWriterOptions } from './evidence.js';
import { AgentError, type Agent } from './runner.js';
import type { DenialResolutionInput, DenialResolutionResult } from './schemas.js';

/**
 * Denial resolution: a CARC/RARC with its group code explained from the X12 lists (as of the
 * denial's date: a code deactivated by then says so, with its stop date), the payer's curated
 * denial pattern for it (root cause, documentation, steps), the one remedy `classifyDenial` gives
 * (with the line's modifiers), the appeal deadlines from the payer's appeal rules when the payer is
 * known (the facility's state, from `ccn`, applies state-specific rules), and the payer's other
 * patterns of the same category. Every statement cites the dataset version it came from.
 */

/**
 * An article's documentation requirements: the article's own (older MCD layouts), else those of
 * its LCDs (a real MCD download's article table has none; its LCDs' doc_reqs hold them).
 */
function documentationOf(a: { doc_reqs?: string | null }, lcds: { doc_reqs?: string | null }[]): string | null {
  const texts = [a.doc_reqs, ...lcds.map((l) => l.doc_reqs)].filter((x): x is string => !!x);
  return texts.length ? [...new Set(texts)].join('\n\n') : null;
}

export function denialResolutionAgent(o: AgentWriterOptions): Agent {
  return {
    type: 'denial_resolution',
    async run(raw, ctx): Promise<DenialResolutionResult> {
      const input = raw as DenialResolutionInput;
      const snapshot = ctx.snapshot;
      const f = gather(ctx);
      const { evidence, trace } = f;
      const { warnings } = trace;

      // The codes: explicit carc/rarc win over denial_code (said in the result).
      let parsed: ReturnType<typeof parseDenialCode> | null = null;
      try {
        parsed = input.denial_code ? parseDenialCode(input.denial_code) : null;
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        if (!input.carc && !input.rarc) throw new AgentError('bad_denial_code', `${input.denial_code} is not a CARC (50), group+CARC (CO-50) or RARC (N290)`);
      }
      // No code field: the codes the query names (as code research takes a code from its query), echoed and said.
      const asked = !input.denial_code && !input.carc && !input.rarc && input.query ? denialCodesInText(input.query) : null;
      let carc = input.carc ?? (parsed && parsed.matched_as !== 'rarc' ? parsed.code : null) ?? asked?.carc ?? null;
      const rarc = input.rarc ?? (parsed?.matched_as === 'rarc' ? parsed.code : null) ?? asked?.rarc ?? null;
      if (carc) carc = carc.replace(/^0+(?=\d)/, '');
      const group = input.group_code ?? parsed?.group_code ?? asked?.group_code ?? null;
      const fromQuery = asked ? [asked.carc ? [asked.group_code, asked.carc].filter(Boolean).join('-') : null, asked.rarc].filter(Boolean).join('/') : null;
      if (fromQuery) warnings.push(`no denial_code, carc or rarc given: ${fromQuery} was read from the query`);
      if (parsed && (input.carc || input.rarc)) warnings.push(`carc/rarc given: they win over denial_code ${input.denial_code}`);
      if (!carc && !rarc) throw new AgentError('no_denial_code', 'the job names no CARC or RARC');

      const x = await x12Index(snapshot);
      const carcRow = carc ? x.byKey.get(`carc:${carc}`) : undefined;
      const rarcRow = rarc ? x.byKey.get(`rarc:${rarc}`) : undefined;
      const groupRow = group ? x.byKey.get(`group:${group}`) : undefined;
      // The lists' start and stop dates govern a code's use on a remittance: checked on the denial's date.
      const codesOn = input.denial_date ?? todayOf(ctx.now());
      const explain = (r: X12CodeRow | undefined) => {
        if (!r) return null;
        const st = x12StatusOn(r, codesOn);
        if (st.status !== 'active') warnings.push(st.note);
        return { code: r.code, description: r.description, start_date: r.start_date, stop_date: r.stop_date, status: st.status, status_note: st.note };
      };
      const carcExplained = explain(carcRow);
      const rarcExplained = explain(rarcRow);
      if (x.version) {
        const parts = [
          carcRow ? `CARC ${carc}: "${carcRow.description}"` : '',
          rarcRow ? `RARC ${rarc}: "${rarcRow.description}"` : '',
          groupRow ? `group ${group}: "${groupRow.description}"` : '',
        ].filter(Boolean);
        if (parts.length) evidence.push({ kind: 'x12', statement: `${parts.join('; ')}.`, facts: { carc: carcRow ?? null, rarc: rarcRow ?? null, group: groupRow ?? null }, citation: trace.cite('x12_codes', x.version) });
      }
      for (const [c, r, list] of [[carc, carcRow, 'CARC'], [rarc, rarcRow, 'RARC']] as const) {
        if (c && !r) warnings.push(`${list} ${c} is not in the loaded X12 lists (x12_codes ${x.version || 'not loaded'}; the seed carries a partial, cited set)`);
      }

      // The facility (ccn): its state applies state-specific filing and appeal rules; echoed with its MAC.
      let facility: Facility | null = null;
      if (input.ccn) {
        try {
          facility = await resolveFacility(snapshot, ctx.tenant, input.ccn, 'either');
        } catch (e) {
          if (!(e instanceof NotFoundError)) throw e;
          warnings.push(`ccn ${input.ccn}: ${e.message}; answered without the facility's state`);
        }
      }
      const state = facility?.effective.state ?? undefined;

      // The payer: its curated pattern for the code, appeal deadlines, similar patterns.
      const k = await payerKnowledge(snapshot);
      let payer = null;
      if (input.payer) {
        try {
          payer = resolvePayer(k, input.payer);
        } catch (e) {
          if (!(e instanceof NotFoundError)) throw e;
          warnings.push(`payer ${input.payer}: ${e.message}; answered without payer rules`);
        }
      } else {
        warnings.push('no payer given: no payer denial pattern or appeal deadline; pass payer (slug or alias) for them');
      }
      let pattern: DenialPatternRow | undefined;
      let appeal = null;
      let similar: DenialPatternRow[] = [];
      if (payer) {
        warnings.push(...payerWarnings(payer));
        const rows = k.denials.get(payer.slug) ?? [];
        pattern =
          rows.find((d) => carc !== null && d.carc_code === carc && (rarc === null || d.remark_code === rarc) && (!group || d.group_code === null || d.group_code === group)) ??
          rows.find((d) => carc !== null && d.carc_code === carc && (!group || d.group_code === null || d.group_code === group)) ??
          rows.find((d) => rarc !== null && d.remark_code === rarc);
        if (pattern) {
          evidence.push({
            kind: 'denial_pattern',
            statement: `${payer.name} pattern for ${pattern.group_code ? `${pattern.group_code}-` : ''}${pattern.carc_code}${pattern.remark_code ? `/${pattern.remark_code}` : ''} (${pattern.denial_category}): ${pattern.root_cause}`,
            facts: { ...pattern },
            citation: trace.cite('payers', k.version),
          });
          similar = rows.filter((d) => d !== pattern && d.denial_category === pattern!.denial_category);
        } else {
          warnings.push(`no curated ${payer.slug} denial pattern for ${carc ? `CARC ${carc}` : `RARC ${rarc}`}`);
        }
      }
      const asOf = todayOf(ctx.now());
      const facts = denialFacts({ group, carc, rarcs: rarc ? [rarc] : [], remarks: rarcMeanings(rarc ? [rarc] : [], (r) => x.byKey.get(`rarc:${r}`)?.description), payerType: payer?.payer_type ?? null, payer: payer?.slug ?? null, modifiers: input.modifiers ?? [] });
      const chosen = classifyDenial(facts, k);
      const denialDate = input.denial_date ?? asOf;
      const dated = remedyDeadline(chosen, { payers: k, payer, dateOfService: input.date_of_service ?? null, noticeDate: denialDate, determinationDate: denialDate, asOf, state });
      const rule = dated.choice;
      const remedy = withDeadline(rule, dated.deadline);
      if (payer) {
        if (rule.deadline === 'resubmit_by' && !input.date_of_service) warnings.push('no date_of_service given: resubmit_by (the timely-filing limit, which keeps running) cannot be dated');
        if (rule.deadline && rule.deadline !== 'resubmit_by' && !input.denial_date) warnings.push(`no denial_date given: the ${rule.deadline.replace(/_/g, ' ')} date counts from today (${denialDate})`);
        if (remedy.deadline?.date) evidence.push({ kind: 'deadline', statement: `${remedy.deadline.kind.replace(/_/g, ' ')} ${remedy.deadline.date} (${rule.rule_id}).`, facts: { ...remedy.deadline }, citation: trace.cite('payers', k.version) });
        const levels = rule.appeal_rights === 'no' ? [] : (k.appeals.get(payer.slug) ?? []);
        if (levels.length) {
          const deadlines = appealDeadlines(levels, { denial_date: denialDate, as_of: asOf, state });
          appeal = { denial_date: denialDate, receipt_convention: receiptConvention(levels), conditional: rule.appeal_rights === 'conditional', condition: rule.appeal_condition, levels: deadlines };
        } else if (rule.appeal_rights !== 'no') {
          warnings.push(`no appeal levels are loaded for ${payer.slug}`);
        }
      }

      // The billed code: the coverage articles that list it (a medical-necessity denial's evidence).
      const coverage = [];
      if (input.code && (!payer || payer.payer_type === 'medicare')) {
        const idx = await coverageIndex(snapshot);
        if (!idx) warnings.push('mcd_coverage is not loaded: no coverage article could be checked for the billed code');
        else {
          for (const { article: a, lcds } of findArticlesForCode(idx, input.code, input.date_of_service ?? todayOf(ctx.now()))) {
            coverage.push({ article_id: a.display_id, article_version: a.article_version, title: a.title, lcds: lcds.map((l) => ({ lcd_id: l.display_id, lcd_version: l.lcd_version, title: l.title })), documentation_requirements: documentationOf(a, lcds) });
            evidence.push({ kind: 'coverage_article', statement: `${a.display_id} v${a.article_version} "${a.title}" lists ${input.code}${lcds.length ? ` (LCD ${lcds.map((l) => l.display_id).join(', ')})` : ''}: its documentation requirements support an appeal of a medical-necessity denial.`, facts: { article_id: a.display_id, lcds: lcds.map((l) => l.display_id) }, citation: trace.cite('mcd_coverage', idx.version) });
          }
          if (coverage.length === 0) warnings.push(`no loaded LCD billing article lists ${input.code}`);
        }
      } else if (input.code) {
        warnings.push(`code ${input.code}: coverage articles are Medicare's; ${payer!.slug}'s own medical policies are not in the loaded knowledge`);
      }

      const action = remedy.remedy;
      const steps = pattern ? pattern.resolution_steps : [`${remedy.reason[0]!.toUpperCase()}${remedy.reason.slice(1)}.`];
      const documents = pattern?.documentation_needed ?? [];
      const code = [group, carc].filter(Boolean).join('-') || rarc!;
      const appealNote = remedy.appeal_rights === 'no' ? '; no appeal rights' : remedy.appeal_rights === 'conditional' && remedy.appeal_condition ? `; appeal ${remedy.appeal_condition}` : '';
      const conclusion = `${code}${rarc && carc ? `/${rarc}` : ''}: recommended action ${action.replace(/_/g, ' ')}${pattern ? ` (${payer!.name}: ${pattern.denial_category.replace(/_/g, ' ')})` : ''}${remedy.deadline?.date ? `; ${remedy.deadline.kind.replace(/_/g, ' ')} ${remedy.deadline.date}` : ''}${appealNote}.`;
      return {
        claim_id: input.claim_id ?? null,
        denial_code: input.denial_code ?? fromQuery,
        carc,
        rarc,
        group_code: group,
        payer_slug: payer?.slug ?? null,
        ccn: input.ccn ?? null,
        facility: facility ? { ccn: facility.ccn, name: facility.effective.name, state: facility.effective.state, mac: facility.reference?.mac ?? null } : null,
        modifiers: input.modifiers ?? [],
        explanation: {
          codes_checked_on: codesOn,
          carc: carcExplained,
          rarc: rarcExplained,
          group: groupRow ? { code: groupRow.code, description: groupRow.description } : null,
        },
        denial_category: pattern?.denial_category ?? null,
        root_cause: pattern?.root_cause ?? null,
        recommended_action: action,
        remedy,
        resolution_steps: steps,
        required_documents: documents,
        auto_appealable: pattern?.auto_appealable ?? false,
        appeal,
        coverage,
        similar_patterns: similar.map((d) => ({ denial_code: d.group_code ? `${d.group_code}-${d.carc_code}` : d.carc_code, remark_code: d.remark_code, denial_category: d.denial_category, root_cause: d.root_cause })),
        ...(await conclude(f, 'denial_resolution', conclusion, ctx, o)),
      };
    },
  };
}
