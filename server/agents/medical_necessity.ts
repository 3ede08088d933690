import { dotted, undotted } from '../../datasets/icd10cm/dataset.js';
import { findDx, icd10Index } from '../../datasets/icd10cm/queries.js';
import { coverageIndex, findArticlesForCode, ILLUSTRATIVE_MCD_ID } from '../../datasets/mcd_coverage/queries.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { conclude, gather, type AgentWriterOptions } from './evidence.js';
import { AgentError, type Agent } from './runner.js';
import type { MedicalNecessityInput } from './schemas.js';

const CODE_IN_TEXT = /\b(?:\d{4}[0-9A-Z]|[A-Z]\d{4})\b/;

/** Ids of the illustrative seed documents (L99001, A99001 ...): no real LCD or article uses them. */

/**
 * Medical necessity: which billing articles (and the LCDs behind them) list a CPT/HCPCS code,
 * whether each submitted ICD-10-CM diagnosis is on an article's covered list, and what
 * documentation the article and LCD require. Verdict `supported` (a valid diagnosis is covered by
 * an article listing the code), `not_supported` (articles list the code, none covers a given
 * diagnosis), `no_policy` (no loaded article lists the code). Clinical notes are kept with the job
 * (purged on schedule) and never read into the result or sent to a writer.
 */
export function medicalNecessityAgent(o: AgentWriterOptions): Agent {
  return {
    type: 'medical_necessity',
    async run(raw, ctx) {
      const input = raw as MedicalNecessityInput;
      const snapshot = ctx.snapshot;
      const code = (input.cpt_code ?? CODE_IN_TEXT.exec((input.query ?? '').toUpperCase())?.[0] ?? '').toUpperCase();
      if (!code) throw new AgentError('no_code', 'the job names no CPT/HCPCS code');
      const dos = input.date_of_service ?? todayOf(ctx.now());
      const f = gather(ctx);
      const { evidence, trace } = f;
      const { warnings } = trace;

      // Diagnoses: valid, billable codes of the fiscal year of the date of service.
      const icd = await icd10Index(snapshot, dos);
      if (!icd) warnings.push('icd10cm is not loaded: diagnosis codes were not validated');
      else if (icd.warning) warnings.push(icd.warning);
      const diagnoses = (input.dx_codes ?? []).map((dx) => {
        const row = icd ? findDx(icd.codes, dx) : undefined;
        const status = !icd ? 'unchecked' : !row ? 'unknown' : row.billable ? 'valid' : 'not_billable';
        return { submitted: dx, code: dotted(undotted(dx)), status, description: row?.long_description ?? row?.short_description ?? null };
      });
      for (const d of diagnoses) {
        if (d.status === 'unknown') warnings.push(`${d.submitted} is not an ICD-10-CM code in ${icd!.version}`);
        if (d.status === 'not_billable') warnings.push(`${d.submitted} is a category, not a billable code: report a code with all its characters`);
      }
      if (icd && diagnoses.length) {
        evidence.push({
          kind: 'diagnoses',
          statement: diagnoses.map((d) => `${d.code}: ${d.status}${d.description ? ` (${d.description})` : ''}`).join('; ') + '.',
          facts: { diagnoses },
          citation: trace.cite('icd10cm', icd.version),
        });
      }

      const cov = await coverageIndex(snapshot);
      let verdict: 'supported' | 'not_supported' | 'no_policy' = 'no_policy';
      const policies: {
        article_id: string;
        article_version: number;
        title: string;
        lcds: { lcd_id: string; lcd_version: number; title: string; doc_reqs: string | null }[];
        covered_dx: string[];
        doc_reqs: string | null;
      }[] = [];
      if (!cov) {
        warnings.push('mcd_coverage is not loaded: no coverage policy could be checked');
      } else {
        const valid = diagnoses.filter((d) => d.status === 'valid' || d.status === 'unchecked');
        for (const { article: a, lcds: lcdRows, covered: coveredRows } of findArticlesForCode(cov, code, dos)) {
          const coveredSet = new Set(coveredRows.map((r) => undotted(r.icd10_code_id)));
          const hits = valid.filter((d) => coveredSet.has(undotted(d.code))).map((d) => d.code);
          const lcds = lcdRows.map((l) => ({ lcd_id: l.display_id, lcd_version: l.lcd_version, title: l.title, doc_reqs: l.doc_reqs }));
          policies.push({ article_id: a.display_id, article_version: a.article_version, title: a.title, lcds, covered_dx: hits, doc_reqs: a.doc_reqs });
          evidence.push({
            kind: 'coverage_article',
            statement: `${a.display_id} v${a.article_version} "${a.title}" lists ${code}${lcds.length ? ` (LCD ${lcds.map((l) => `${l.lcd_id} v${l.lcd_version}`).join(', ')})` : ''}; ${hits.length ? `covered diagnoses submitted: ${hits.join(', ')}` : `none of the submitted diagnoses is on its ${coveredRows.length}-code covered list`}.`,
            facts: { article: a, lcds, covered_submitted: hits, covered_count: coveredRows.length },
            citation: trace.cite('mcd_coverage', cov.version),
          });
          if ([a.display_id, ...lcds.map((l) => l.lcd_id)].some((x) => ILLUSTRATIVE_MCD_ID.test(x))) {
            const w = 'coverage rows of the seeds are illustrative (no real MCD code-level export is loaded): do not rely on this verdict';
            if (!warnings.includes(w)) warnings.push(w);
          }
        }
        if (policies.length) verdict = policies.some((p) => p.covered_dx.length > 0) ? 'supported' : 'not_supported';
        if (!policies.length) warnings.push(`no loaded billing article lists ${code}: no LCD applies; an NCD or the contractor's own policy may`);
        if (diagnoses.length === 0 && policies.length) warnings.push('no dx_codes given: the verdict needs the diagnoses billed with the code');
      }

      const documentation = policies.flatMap((p) => [p.doc_reqs, ...p.lcds.map((l) => l.doc_reqs)]).filter((x): x is string => !!x);
      const conclusion =
        verdict === 'supported'
          ? `${code}: supported by ${policies.filter((p) => p.covered_dx.length).map((p) => p.article_id).join(', ')} for ${[...new Set(policies.flatMap((p) => p.covered_dx))].join(', ')}.`
          : verdict === 'not_supported'
            ? `${code}: not supported: ${policies.map((p) => p.article_id).join(', ')} list the code, but no submitted diagnosis is on their covered lists.`
            : `${code}: no policy: no loaded LCD billing article lists the code.`;
      return {
        cpt_code: code,
        date_of_service: dos,
        verdict,
        diagnoses,
        policies,
        documentation_required: [...new Set(documentation)],
        ...(await conclude(f, 'medical_necessity', conclusion, ctx, o)),
      };
    },
  };
}
