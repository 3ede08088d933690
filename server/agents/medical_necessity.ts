import { dotted, undotted } from '../../datasets/icd10cm/dataset.js';
import { findDx, icd10Index } from '../../datasets/icd10cm/queries.js';
import { jurisdictionsOfState, macIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { toIsoDate } from '../../datasets/_shared/values.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { resolveFacility } from '../facilities/service.js';
import { contractorFilterText, contractorNames, coverageForCode, parseContractorFilter, policyIndex, type ContractorFilter, type CoverageHit } from '../policies/service.js';
import type { Trace } from '../trace.js';
import { citeDocument, conclude, gather, type Findings } from './evidence.js';
import { AgentError, defineAgent, type AgentContext } from './define.js';
import { CODE_IN_TEXT, MedicalNecessityInputSchema, MedicalNecessityResultSchema, type MedicalNecessityInput, type MedicalNecessityResult } from './schemas.js';
import { ownValue } from '../../lib/own.js';

/** The `context` keys the agent reads; any other key is named in `context_ignored`. */
const CONTRACTOR_KEYS = ['mac', 'contractor', 'jurisdiction'] as const;
const NOT_USED: Record<string, string> = {
  place_of_service: 'LCDs, billing articles and NCDs apply in every setting: the place of service changes no coverage document',
};

/** A diagnosis as checked: `unknown` only when the loaded ICD-10-CM version is a seed excerpt (the code may be valid). */
type DxStatus = 'valid' | 'not_billable' | 'invalid' | 'unknown' | 'unchecked';
type Diagnosis = MedicalNecessityResult['diagnoses'][number];
type Context = NonNullable<MedicalNecessityInput['context']>;

/** Where the question applies: the facility's state (or the one the context names) and a contractor or jurisdiction the context names. */
interface Scope {
  ccn: string | null;
  facility: string | null;
  state: string | null;
  state_source: 'ccn' | 'context' | null;
  contractor_filter: ContractorFilter | null;
  mac_jurisdictions: { jurisdiction: string; kind: string; contractor: string }[];
}

/**
 * Medical necessity: which billing articles (and the LCDs behind them) list a CPT/HCPCS code in
 * the jurisdiction that processes the claim, whether each submitted ICD-10-CM diagnosis is on an
 * article's covered list, the LCDs that list the code themselves, the NCDs that name it or that
 * those documents name, and what documentation they require. The jurisdiction comes from `ccn`
 * (the facility's state, its MAC jurisdictions) or `context` (`state`; `mac`, `contractor` or
 * `jurisdiction`); `context.date_of_service` stands in for a missing `date_of_service`. Verdict
 * `supported` (a diagnosis is covered by an article listing the code), `not_supported` (articles
 * list the code, none covers a given diagnosis), `policy_without_dx_list` (only LCDs or NCDs
 * without a covered-diagnosis list apply: their indications decide), `no_policy`. Clinical notes
 * are kept with the job (purged on schedule) and never read into the result or sent to a writer.
 * The documents come from `coverageForCode` (the policies area), the facility from
 * `resolveFacility`, as every REST answer gets it.
 */
export const medicalNecessity = defineAgent({
  type: 'medical_necessity',
  input: MedicalNecessityInputSchema,
  output: MedicalNecessityResultSchema,
  summary: 'Check medical necessity: which LCD billing articles list the code, whether each diagnosis is covered, what documentation they require',
  description: 'Verdict supported | not_supported | no_policy with the article and LCD ids and versions used; diagnoses are validated against ICD-10-CM for the date of service. clinical_notes are kept with the job and purged on schedule, never logged.',
  examples: [
    { summary: 'a facet joint injection for lumbar spondylosis', body: { cpt_code: '64493', dx_codes: ['M47.816'], date_of_service: '2026-03-02' } },
    { summary: 'a blepharoplasty for eyelid ptosis', body: { cpt_code: '15823', dx_codes: ['H02.831'] } },
    { summary: "in a facility's jurisdiction, with context", body: { cpt_code: '64493', dx_codes: ['M47.816'], ccn: '050454', context: { date_of_service: '2026-03-02', place_of_service: '22' } } },
    { summary: 'no CPT code and a diagnosis that is not ICD-10-CM', status: 422, body: { dx_codes: ['not a code'] } },
  ],
  async run(input, ctx) {
    const code = (input.cpt_code ?? CODE_IN_TEXT.exec((input.query ?? '').toUpperCase())?.[0] ?? '').toUpperCase();
    if (!code) throw new AgentError('no_code', 'the job names no CPT/HCPCS code');
    const f = gather(ctx);
    const context = input.context ?? {};
    const used: Record<string, string> = {};
    const dos = dateOfService(input, context, used, f.trace, ctx);
    const scope = await scopeOf(input, context, used, ctx, f.trace);
    const ignored = ignoredContext(context, used, f.trace);
    jurisdictionFact(scope, f);
    const diagnoses = await checkDiagnoses(ctx.snapshot, input.dx_codes ?? [], dos, f);
    const cov = await coverageOf(ctx.snapshot, code, dos, scope, diagnoses, f);
    const documentation = [...cov.policies.flatMap((p) => [p.doc_reqs, ...p.lcds.map((l) => l.doc_reqs)]), ...cov.lcds.map((l) => l.doc_reqs)].filter((x): x is string => !!x);
    return {
      cpt_code: code,
      date_of_service: dos,
      verdict: cov.verdict,
      jurisdiction: { ...scope, contractor_filter: scope.contractor_filter ? contractorFilterText(scope.contractor_filter) : null },
      context_used: used,
      context_ignored: ignored,
      diagnoses,
      policies: cov.policies,
      lcds: cov.lcds,
      ncds: cov.ncds,
      out_of_jurisdiction: cov.outOfScope,
      documentation_required: [...new Set(documentation)],
      ...(await conclude(f, 'medical_necessity', conclusionOf(code, scope, cov), ctx)),
    };
  },
});

/** The date of service: the body's, else the context's (recorded as used), else today; a bad or conflicting context date is a warning. */
function dateOfService(input: MedicalNecessityInput, context: Context, used: Record<string, string>, trace: Trace, ctx: AgentContext): string {
  const ctxDate = typeof context.date_of_service === 'string' ? toIsoDate(context.date_of_service.trim()) : null;
  if (context.date_of_service !== undefined && !ctxDate) trace.warnings.push('context.date_of_service is not a YYYY-MM-DD date: ignored');
  if (ctxDate && input.date_of_service && ctxDate !== input.date_of_service) trace.warnings.push(`context.date_of_service ${ctxDate} differs from date_of_service ${input.date_of_service}: date_of_service is used`);
  if (ctxDate && !input.date_of_service) used.date_of_service = ctxDate;
  return input.date_of_service ?? ctxDate ?? todayOf(ctx.now());
}

/** The context keys not read (own properties only: a `constructor` key is named as ignored, not read from a prototype); a known one says why. */
function ignoredContext(context: Context, used: Record<string, string>, trace: Trace): string[] {
  const ignored: string[] = [];
  for (const k of Object.keys(context)) {
    if (Object.hasOwn(used, k) || k === 'date_of_service' || k === 'state' || (CONTRACTOR_KEYS as readonly string[]).includes(k)) continue;
    ignored.push(k);
    const why = ownValue(NOT_USED, k);
    if (why) trace.warnings.push(`context.${k}: ${why}`);
  }
  return ignored;
}

/** The jurisdiction as evidence (the facility or state, the contractor filter, the MAC jurisdictions), or a warning that every jurisdiction is checked. */
function jurisdictionFact(scope: Scope, { evidence, trace }: Findings): void {
  if (!scope.state && !scope.contractor_filter) {
    trace.warnings.push('no ccn or context state/contractor: the coverage documents of every jurisdiction are checked');
    return;
  }
  const where = [scope.ccn ? `facility ${scope.ccn}${scope.facility ? ` (${scope.facility})` : ''} in ${scope.state ?? 'an unknown state'}` : scope.state ? `state ${scope.state}` : null, scope.contractor_filter ? contractorFilterText(scope.contractor_filter) : null].filter(Boolean).join(', ');
  const macs = scope.mac_jurisdictions.map((j) => `${j.jurisdiction} (${j.contractor}, ${j.kind === 'dme' ? 'DME' : 'A/B'})`).join(', ');
  evidence.push({
    kind: 'jurisdiction',
    statement: `Coverage documents are those of ${where}${macs ? `: MAC jurisdictions ${macs}` : ''}.`,
    facts: { ...scope, contractor_filter: scope.contractor_filter ? contractorFilterText(scope.contractor_filter) : null },
    citation: scope.mac_jurisdictions.length ? trace.cite('mac_jurisdictions', trace.versions.mac_jurisdictions ?? '') : null,
  });
}

/** The diagnoses checked against ICD-10-CM of the date's fiscal year (valid, billable codes), each problem a warning. */
async function checkDiagnoses(snapshot: SnapshotReader, dxCodes: string[], dos: string, { evidence, trace }: Findings): Promise<Diagnosis[]> {
  const { warnings } = trace;
  const icd = await icd10Index(snapshot, dos);
  if (!icd) warnings.push('icd10cm is not loaded: diagnosis codes were not validated');
  else if (icd.warning) warnings.push(icd.warning);
  const diagnoses = dxCodes.map((dx) => {
    const row = icd ? findDx(icd.codes, dx) : undefined;
    const status: DxStatus = !icd ? 'unchecked' : !row ? (icd.seed ? 'unknown' : 'invalid') : row.billable ? 'valid' : 'not_billable';
    return { submitted: dx, code: dotted(undotted(dx)), status, description: row?.long_description ?? row?.short_description ?? null };
  });
  for (const d of diagnoses) {
    if (d.status === 'unknown') warnings.push(`${d.submitted} is not in the loaded ICD-10-CM seed excerpt (${icd!.version}); load the CMS/CDC release to validate`);
    if (d.status === 'invalid') warnings.push(`${d.submitted} is not an ICD-10-CM code in ${icd!.version}`);
    if (d.status === 'not_billable') warnings.push(`${d.submitted} is a category, not a billable code: report a code with all its characters`);
  }
  if (icd && diagnoses.length) {
    evidence.push({
      kind: 'diagnoses',
      statement: diagnoses.map((d) => `${d.code}: ${d.status}${d.description ? ` (${d.description})` : ''}`).join('; ') + '.',
      facts: { diagnoses, seed_excerpt: icd.seed },
      citation: trace.cite('icd10cm', icd.version),
    });
  }
  return diagnoses;
}

/** The coverage documents of the code in the scope, as the answer lists them, and the verdict they give. */
interface Coverage {
  verdict: MedicalNecessityResult['verdict'];
  policies: ReturnType<typeof articleOf>[];
  lcds: ReturnType<typeof lcdOf>[];
  ncds: MedicalNecessityResult['ncds'];
  outOfScope: MedicalNecessityResult['out_of_jurisdiction'];
}

/**
 * The code's coverage documents in the scope (`coverageForCode`): billing articles with the
 * submitted diagnoses they cover, LCDs listing the code, NCDs; each cited, each limit a warning;
 * and the verdict.
 */
async function coverageOf(snapshot: SnapshotReader, code: string, dos: string, scope: Scope, diagnoses: Diagnosis[], f: Findings): Promise<Coverage> {
  const { trace } = f;
  const idx = await policyIndex(snapshot);
  const covVersion = idx.versions.mcd_coverage;
  const out: Coverage = { verdict: 'no_policy', policies: [], lcds: [], ncds: [], outOfScope: [] };
  if (!covVersion) {
    trace.warnings.push('mcd_coverage is not loaded: no coverage policy could be checked');
    return out;
  }
  trace.use('mcd_coverage', covVersion);
  const cov = coverageForCode(idx, code, dos, { state: scope.state, contractor: scope.contractor_filter });
  out.outOfScope = cov.outOfScope;
  const cite = (h: CoverageHit) => citeDocument(trace, 'mcd_coverage', covVersion, { doc_id: h.doc.doc_id, version: h.version.version, title: h.version.title, url: h.version.url });
  const matchable = diagnoses.filter((d) => d.status === 'valid' || d.status === 'unknown' || d.status === 'unchecked');
  for (const h of cov.articles) {
    const covered = new Set(h.doc.covered.map(undotted));
    out.policies.push(articleFact(h, articleOf(h, idx.medicare, matchable.filter((d) => covered.has(undotted(d.code))).map((d) => d.code)), code, cite(h), covVersion, f));
  }
  for (const h of cov.lcds) {
    const l = lcdOf(h);
    out.lcds.push(l);
    f.evidence.push({ kind: 'coverage_lcd', statement: `${l.lcd_id} v${l.lcd_version} "${l.title}"${issuer(l)} lists ${code} itself (no billing article with a covered-diagnosis list lists it).`, facts: { lcd: l }, citation: cite(h) });
  }
  for (const h of cov.ncds) {
    const n = { ncd_id: h.doc.doc_id, version: h.version.version, title: h.version.title, url: h.version.url, found_by: h.via.length ? ('related' as const) : ('text' as const), via: h.via };
    out.ncds.push(n);
    const how = n.via.length ? `named as related by ${n.via.join(', ')}` : `its text names ${code} (the MCD's NCD tables list no codes: read its indications and limitations)`;
    f.evidence.push({ kind: 'ncd', statement: `${n.ncd_id} v${n.version} "${n.title}" (national): ${how}.`, facts: { ncd: n }, citation: cite(h) });
  }
  const found = [...cov.articles, ...cov.lcds, ...cov.ncds];
  if (found.some((h) => h.doc.listing.length)) trace.use('mcd_documents', idx.versions.mcd_documents);
  if (found.some((h) => h.doc.illustrative)) trace.warnings.push('coverage rows of the seeds are illustrative (no real MCD code-level export is loaded): do not rely on this verdict');
  const unplaced = [...cov.articles, ...cov.lcds].filter((h) => !h.placed).map((h) => h.doc.doc_id);
  if (unplaced.length && (scope.state || scope.contractor_filter)) {
    trace.warnings.push(`${unplaced.join(', ')}: no loaded table names the contractor's jurisdiction, so ${unplaced.length > 1 ? 'they are' : 'it is'} kept though ${unplaced.length > 1 ? 'they' : 'it'} may not apply ${scope.state ? `in ${scope.state}` : `to ${contractorFilterText(scope.contractor_filter!)}`}`);
  }
  if (out.outOfScope.length) trace.warnings.push(`left out as another jurisdiction's: ${out.outOfScope.map((d) => d.doc_id).join(', ')}`);
  return verdictOf(out, code, scope, diagnoses, trace);
}

/** A billing article (and each of its LCDs) as cited evidence; the article as the answer lists it. */
function articleFact(h: CoverageHit, p: ReturnType<typeof articleOf>, code: string, citation: ReturnType<typeof citeDocument>, covVersion: string, { evidence, trace }: Findings): ReturnType<typeof articleOf> {
  evidence.push({
    kind: 'coverage_article',
    statement: `${p.article_id} v${p.article_version} "${p.title}"${issuer(p)} lists ${code}${p.lcds.length ? ` (LCD ${p.lcds.map((l) => `${l.lcd_id} v${l.lcd_version}`).join(', ')})` : ''}; ${p.covered_dx.length ? `covered diagnoses submitted: ${p.covered_dx.join(', ')}` : `none of the submitted diagnoses is on its ${h.doc.covered.length}-code covered list`}.`,
    facts: { article: p, covered_submitted: p.covered_dx, covered_count: h.doc.covered.length },
    citation,
  });
  for (const l of p.lcds) {
    evidence.push({
      kind: 'coverage_lcd',
      statement: `${l.lcd_id} v${l.lcd_version} "${l.title}" is the LCD of ${p.article_id}${l.doc_reqs ? `; its documentation requirements: ${l.doc_reqs.replace(/\.$/, '')}` : ''}.`,
      facts: { lcd: l, article_id: p.article_id },
      citation: citeDocument(trace, 'mcd_coverage', covVersion, { doc_id: l.lcd_id, version: l.lcd_version, title: l.title, url: l.url }),
    });
  }
  return p;
}

/** The verdict of the documents found: an article covering a diagnosis, articles covering none, only LCDs or NCDs, or none; what is missing is a warning. */
function verdictOf(c: Coverage, code: string, scope: Scope, diagnoses: Diagnosis[], trace: Trace): Coverage {
  if (c.policies.length) c.verdict = c.policies.some((p) => p.covered_dx.length > 0) ? 'supported' : 'not_supported';
  else if (c.lcds.length || c.ncds.length) c.verdict = 'policy_without_dx_list';
  if (!c.policies.length) trace.warnings.push(`no loaded billing article${scope.state || scope.contractor_filter ? ' of the jurisdiction' : ''} lists ${code}: no covered-diagnosis list applies${c.lcds.length || c.ncds.length ? '; the LCDs and NCDs found decide by their indications' : '; the contractor\'s own policy may'}`);
  if (diagnoses.length === 0 && c.policies.length) trace.warnings.push('no dx_codes given: the verdict needs the diagnoses billed with the code');
  return c;
}

/** The finding in one sentence, by verdict, naming the jurisdiction when one applies. */
function conclusionOf(code: string, scope: Scope, { verdict, policies, lcds, ncds }: Coverage): string {
  const where = scope.state || scope.contractor_filter ? ` (${[scope.mac_jurisdictions.filter((j) => j.kind === 'ab').map((j) => j.jurisdiction).join('/'), scope.state, scope.contractor_filter ? contractorFilterText(scope.contractor_filter) : null].filter(Boolean).join(', ')})` : '';
  const others = [...lcds.map((l) => l.lcd_id), ...ncds.map((n) => n.ncd_id)];
  return verdict === 'supported'
    ? `${code}${where}: supported by ${policies.filter((p) => p.covered_dx.length).map((p) => p.article_id).join(', ')} for ${[...new Set(policies.flatMap((p) => p.covered_dx))].join(', ')}.`
    : verdict === 'not_supported'
      ? `${code}${where}: not supported: ${policies.map((p) => p.article_id).join(', ')} ${policies.length > 1 ? 'list the code, but no submitted diagnosis is on their covered lists' : 'lists the code, but no submitted diagnosis is on its covered list'}.`
      : verdict === 'policy_without_dx_list'
        ? `${code}${where}: no billing article lists the code; ${others.join(', ')} apply without a covered-diagnosis list: check the records against their indications.`
        : `${code}${where}: no policy: no loaded LCD, billing article or NCD lists the code.`;
}

/** `, issued by X (JE)` for a document whose contractor is known. */
const issuer = (d: { contractors: string[]; jurisdictions: string[] }) => (d.contractors.length ? `, issued by ${d.contractors.join(' and ')}${d.jurisdictions.length ? ` (${d.jurisdictions.join(', ')})` : ''}` : '');

const whoOf = (h: CoverageHit) => ({
  contractors: contractorNames(h.doc),
  jurisdictions: (h.doc.placement?.jurisdictions ?? []).map((j) => j.jurisdiction),
  placed: h.placed,
});

function lcdOf(h: CoverageHit) {
  return { lcd_id: h.doc.doc_id, lcd_version: h.version.version, title: h.version.title, url: h.version.url, ...whoOf(h), doc_reqs: h.doc.coverage?.doc_reqs ?? null };
}

/** An article as the answer shows it: its LCDs (with their documentation requirements) and the submitted diagnoses it covers. */
function articleOf(h: CoverageHit, docs: Map<string, CoverageHit['doc']>, coveredDx: string[]) {
  const lcds = h.doc.related
    .map((id) => docs.get(id))
    .filter((d) => d?.coverage)
    .map((d) => ({ lcd_id: d!.doc_id, lcd_version: d!.coverage!.version, title: d!.coverage!.title, url: d!.coverage!.url, doc_reqs: d!.coverage!.doc_reqs }));
  return { article_id: h.doc.doc_id, article_version: h.version.version, title: h.version.title, url: h.version.url, ...whoOf(h), lcds, covered_dx: coveredDx, doc_reqs: h.doc.coverage?.doc_reqs ?? null };
}

/**
 * The scope of the question: the facility's state from `ccn` (the tenant's registration wins over
 * the reference data, as in every answer; an unknown CCN is a warning), else `context.state`; a
 * contractor or jurisdiction from `context.mac` / `contractor` / `jurisdiction`; the MAC
 * jurisdictions of the state from the curated table.
 */
async function scopeOf(input: MedicalNecessityInput, context: Context, used: Record<string, string>, ctx: AgentContext, trace: Trace): Promise<Scope> {
  const snapshot = ctx.snapshot;
  const scope: Scope = { ccn: input.ccn ?? null, facility: null, state: null, state_source: null, contractor_filter: null, mac_jurisdictions: [] };
  if (input.ccn) {
    try {
      const f = await resolveFacility(snapshot, ctx.tenant, input.ccn, 'either');
      scope.facility = f.effective.name;
      scope.state = f.effective.state;
      scope.state_source = f.effective.state ? 'ccn' : null;
      if (f.reference?.versions.facilities) trace.use('facilities', f.reference.versions.facilities);
      if (!f.effective.state) trace.warn(`CCN ${input.ccn}: no state is known for the facility, so no jurisdiction could be applied from it`);
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      trace.warn(`CCN ${input.ccn} is not in the facility reference data and not registered by this tenant: its jurisdiction is unknown${typeof context.state === 'string' ? '' : ', so the documents of every jurisdiction are checked'}`);
    }
  }
  const ctxState = typeof context.state === 'string' ? context.state.trim().toUpperCase() : null;
  if (context.state !== undefined && !(ctxState && /^[A-Z]{2}$/.test(ctxState))) trace.warn('context.state is not a two-letter state code: ignored');
  else if (ctxState) {
    if (scope.state && scope.state !== ctxState) trace.warn(`context.state ${ctxState} differs from facility ${input.ccn}'s state ${scope.state}: the facility's is used`);
    if (!scope.state) {
      scope.state = ctxState;
      scope.state_source = 'context';
      used.state = ctxState;
    }
  }
  // A contract number sent as a JSON number has lost its leading zero (1112 for 01112).
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isInteger(v) && v > 0 ? String(v).padStart(5, '0') : '');
  const key = CONTRACTOR_KEYS.find((k) => text(context[k]) !== '');
  if (key) {
    scope.contractor_filter = parseContractorFilter(text(context[key]));
    used[key] = text(context[key]);
  }
  for (const k of CONTRACTOR_KEYS) if (k !== key && context[k] !== undefined) trace.warn(`context.${k} is ${key ? `not read (context.${key} is)` : 'not a contractor name, number or jurisdiction: ignored'}`);
  const mac = await macIndex(snapshot);
  if (!mac && (scope.state || scope.contractor_filter)) trace.warn('mac_jurisdictions is not loaded: documents are placed only by the states their contracts name in mcd_coverage');
  if (mac) {
    const f = scope.contractor_filter;
    const rows = scope.state ? jurisdictionsOfState(mac, scope.state) : f && 'jurisdiction' in f ? mac.rows.filter((r) => r.jurisdiction === f.jurisdiction) : [];
    scope.mac_jurisdictions = rows.map((r) => ({ jurisdiction: r.jurisdiction, kind: r.kind, contractor: r.contractor }));
    if (rows.length) trace.use('mac_jurisdictions', mac.version);
  }
  return scope;
}
