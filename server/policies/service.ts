import type { MacJurisdictionRow } from '../../datasets/mac_jurisdictions/dataset.js';
import { coverageIndex, ILLUSTRATIVE_MCD_ID, ILLUSTRATIVE_NCD_ID, mcdUrl, ncdDisplayId, type McdContractor } from '../../datasets/mcd_coverage/queries.js';
import type { McdDocumentRow } from '../../datasets/mcd_documents/dataset.js';
import { mcdListing, versionInForce } from '../../datasets/mcd_documents/queries.js';
import { contractorKey, coversState, jurisdictionsOf, macIndex, type DocumentJurisdictions, type MacIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { payerKnowledge } from '../../datasets/payers/queries.js';
import type { PolicyRuleRow } from '../../datasets/payers/schema.js';
import { versionLabel } from '../../datasets/_shared/versions.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import type { PolicyDocument, PolicyRule } from './schemas.js';

/** The payer the spec names for Medicare fee-for-service, whose answers carry the CMS documents. */
export const MEDICARE_FFS = 'medicare_ffs';

/** A document version as an answer shows it. */
interface DocVersion {
  version: number;
  title: string;
  effective_date: string | null;
  retirement_date: string | null;
  url: string;
}

/** One Medicare coverage document (LCD, billing article or NCD) as the loaded releases describe it. */
export interface MedicareDoc {
  doc_id: string;
  kind: 'lcd' | 'article' | 'ncd';
  /** Its versions in the MCD listing (mcd_documents), oldest first; empty when only mcd_coverage has it. */
  listing: McdDocumentRow[];
  /** Its latest version in mcd_coverage's tables, with its documentation requirements. */
  coverage: (DocVersion & { doc_reqs: string | null }) | null;
  /** HCPCS codes it lists (an LCD: its own and those of its billing articles; an NCD: those its text names). */
  codes: string[];
  /** HCPCS codes the document lists itself (an article's, an LCD's lcd_x_hcpc_code rows, the codes an NCD's text names). */
  ownCodes: string[];
  /** An article's covered ICD-10-CM codes, as the MCD prints them. */
  covered: string[];
  /** An article's LCDs, an LCD's articles. */
  related: string[];
  /** The NCDs (display ids, `NCD 150.13`) an LCD or article names as related. */
  ncds: string[];
  /** Its contractors in mcd_coverage's contractor tables (the download's contracts), empty when none is loaded. */
  contractors: McdContractor[];
  /** The states its contracts cover (contractor_jurisdiction of the download): exact; null when not loaded for every contract. */
  states: string[] | null;
  /** Where its contractors place it in the curated MAC jurisdictions (null: no contractor known, or mac_jurisdictions not loaded). */
  placement: DocumentJurisdictions | null;
  illustrative: boolean;
}

/** A payer's curated policy document: the payers dataset's rules of one doc id. */
interface CommercialDoc {
  payer_slug: string;
  doc_id: string;
  rules: PolicyRuleRow[];
}

/** Every policy document of the loaded releases, indexed once per snapshot. */
export interface PolicyIndex {
  /** Dataset -> version label the index was built from (loaded ones only). */
  versions: Record<string, string>;
  medicare: Map<string, MedicareDoc>;
  /** HCPCS -> ids of the billing articles listing it. */
  articlesByCode: Map<string, string[]>;
  /** HCPCS -> ids of the LCDs listing it themselves, and of the NCDs whose text names it. */
  lcdsByCode: Map<string, string[]>;
  ncdsByCode: Map<string, string[]>;
  commercial: CommercialDoc[];
}

const SOURCES = ['mcd_documents', 'mcd_coverage', 'mac_jurisdictions', 'payers'] as const;

/**
 * The policy documents of the snapshot: the MCD listing (mcd_documents) joined by display id
 * with mcd_coverage's LCD, article and NCD tables and their code rows, each placed in MAC
 * jurisdictions by its contractor (mac_jurisdictions), and the payers dataset's curated
 * commercial rules grouped by document.
 */
export function policyIndex(snapshot: SnapshotReader): Promise<PolicyIndex> {
  const labels = SOURCES.map((d) => versionLabel(snapshot, d) ?? '');
  return snapshot.memo(
    `policies:index:${labels.join(':')}`,
    async () => {
      const [listing, cov, mac, k] = await Promise.all([mcdListing(snapshot), coverageIndex(snapshot), macIndex(snapshot), payerKnowledge(snapshot)]);
      const versions: Record<string, string> = {};
      SOURCES.forEach((d, i) => {
        if (labels[i]) versions[d] = labels[i]!;
      });
      const medicare = new Map<string, MedicareDoc>();
      const doc = (doc_id: string, kind: MedicareDoc['kind']): MedicareDoc => {
        let d = medicare.get(doc_id);
        if (!d) medicare.set(doc_id, (d = { doc_id, kind, listing: [], coverage: null, codes: [], ownCodes: [], covered: [], related: [], ncds: [], contractors: [], states: null, placement: null, illustrative: false }));
        return d;
      };
      if (cov) {
        const ncdIds = (ids: string[] | undefined) => (ids ?? []).map((id) => cov.ncdById.get(id)).filter((n) => n !== undefined).map(ncdDisplayId);
        const placeBy = (d: MedicareDoc, contractors: McdContractor[] | undefined) => {
          d.contractors = contractors ?? [];
          d.states = d.contractors.length && d.contractors.every((c) => c.states) ? [...new Set(d.contractors.flatMap((c) => c.states!))].sort() : null;
        };
        for (const a of cov.articles.values()) {
          const d = doc(a.display_id, 'article');
          d.coverage = { version: a.article_version, title: a.title, effective_date: a.article_eff_date, retirement_date: a.date_retired, url: mcdUrl('article', a.article_id, a.article_version), doc_reqs: a.doc_reqs ?? null };
          d.codes = d.ownCodes = cov.codesOfArticle.get(a.article_id) ?? [];
          d.covered = (cov.covered.get(a.article_id) ?? []).map((c) => c.icd10_code_id);
          d.related = (cov.lcdsOfArticle.get(a.article_id) ?? []).map((l) => l.display_id);
          d.ncds = ncdIds(cov.ncdsOfArticle.get(a.article_id));
          placeBy(d, cov.contractorsOfArticle.get(a.article_id));
          d.illustrative = ILLUSTRATIVE_MCD_ID.test(a.display_id);
        }
        for (const l of cov.lcds.values()) {
          const d = doc(l.display_id, 'lcd');
          d.coverage = { version: l.lcd_version, title: l.title, effective_date: l.rev_eff_date ?? l.orig_det_eff_date, retirement_date: l.date_retired, url: mcdUrl('lcd', l.lcd_id, l.lcd_version), doc_reqs: l.doc_reqs };
          const articles = cov.articlesOfLcd.get(l.lcd_id) ?? [];
          d.related = articles.map((id) => cov.articles.get(id)!.display_id);
          d.ownCodes = cov.codesOfLcd.get(l.lcd_id) ?? [];
          d.codes = [...new Set([...articles.flatMap((id) => cov.codesOfArticle.get(id) ?? []), ...d.ownCodes])];
          d.ncds = ncdIds(cov.ncdsOfLcd.get(l.lcd_id));
          placeBy(d, cov.contractorsOfLcd.get(l.lcd_id));
          d.illustrative = ILLUSTRATIVE_MCD_ID.test(l.display_id);
        }
        for (const n of cov.ncds) {
          const d = doc(ncdDisplayId(n), 'ncd');
          d.coverage = { version: n.ncd_vrsn_num, title: n.ncd_mnl_sect_title, effective_date: n.ncd_efctv_dt, retirement_date: n.ncd_trmntn_dt, url: mcdUrl('ncd', n.ncd_id, n.ncd_vrsn_num), doc_reqs: null };
          d.codes = d.ownCodes = n.codes_named;
          d.illustrative = ILLUSTRATIVE_NCD_ID.test(n.ncd_id);
        }
      }
      for (const [id, rows] of listing?.byDisplayId ?? []) {
        const d = doc(id, rows[0]!.document_type);
        d.listing = rows;
      }
      // Placement: the download's own contracts (exact states, DME region) when loaded, else the
      // contractor names of the listing, matched to the curated jurisdictions.
      if (mac) {
        for (const d of medicare.values()) {
          if (d.kind === 'ncd') continue;
          if (d.contractors.some((c) => c.name)) d.placement = placeByContracts(mac, d.contractors, d.states);
          else if (d.listing.length) d.placement = jurisdictionsOf(mac, d.listing.at(-1)!.contractors);
        }
      }
      const articlesByCode = new Map<string, string[]>();
      const lcdsByCode = new Map<string, string[]>();
      const ncdsByCode = new Map<string, string[]>();
      const byKind = { article: articlesByCode, lcd: lcdsByCode, ncd: ncdsByCode };
      for (const d of medicare.values()) {
        const m = byKind[d.kind];
        for (const c of d.ownCodes) m.set(c, [...(m.get(c) ?? []), d.doc_id]);
      }
      const commercial: CommercialDoc[] = [];
      for (const [slug, rules] of k.policies) {
        const byDoc = new Map<string, PolicyRuleRow[]>();
        for (const r of rules) byDoc.set(r.doc_id, [...(byDoc.get(r.doc_id) ?? []), r]);
        for (const [doc_id, rs] of byDoc) commercial.push({ payer_slug: slug, doc_id, rules: rs });
      }
      return { versions, medicare, articlesByCode, lcdsByCode, ncdsByCode, commercial };
    },
    { pin: true },
  );
}

/**
 * Where the download's contracts of a document place it among the curated jurisdictions: a DME
 * contract by its region (`DME B`), an A/B one by its contractor's name, kept to the jurisdictions
 * covering the states the contracts cover when those are loaded (Noridian's 01112 contract is JE
 * only, though Noridian holds JE and JF). A contract with no name (contractor.csv not loaded) or
 * one the curated table does not hold stays unplaced.
 */
export function placeByContracts(mac: MacIndex, contractors: McdContractor[], states: string[] | null): DocumentJurisdictions {
  const found = new Map<string, MacJurisdictionRow>();
  const unplaced: string[] = [];
  for (const c of contractors) {
    const rows = !c.name
      ? []
      : c.dme_region
        ? mac.rows.filter((r) => r.jurisdiction === `DME ${c.dme_region}`)
        : mac.rows.filter((r) => r.kind === 'ab' && contractorKey(r.contractor) === contractorKey(c.name!) && (!c.states || c.states.some((s) => coversState(r, s))));
    if (rows.length === 0) unplaced.push(`${c.name ?? `contractor ${c.contractor_id}`}${c.number ? ` (${c.number})` : ''}`);
    for (const r of rows) found.set(r.jurisdiction, r);
  }
  const jurisdictions = [...found.values()];
  return { jurisdictions, resolved: unplaced.length === 0 && (jurisdictions.length === 1 || (states !== null && jurisdictions.length > 0)), unplaced };
}

/** A Medicare document's version in force on `date` (the listing's, else mcd_coverage's), and whether it is. */
function versionOn(d: MedicareDoc, date: string): DocVersion & { in_force: boolean } {
  if (d.listing.length) {
    const v = versionInForce(d.listing, date);
    const started = (v.effective_date ?? '') <= date;
    return { version: v.document_version, title: v.title, effective_date: v.effective_date, retirement_date: v.retirement_date, url: v.url, in_force: started && !(v.retirement_date && v.retirement_date < date) };
  }
  const c = d.coverage!;
  return { ...c, in_force: !(c.retirement_date && c.retirement_date < date) };
}

/**
 * Whether a Medicare document applies in `state`: an NCD everywhere; an LCD or article where one
 * of its contractor's jurisdictions covers the state. A document its contractor does not place
 * (no listing row, an HH+H contract) is kept: `unplaced`, so the answer can say it may over-include.
 */
function inState(d: MedicareDoc, state: string): 'yes' | 'no' | 'unplaced' {
  if (d.kind === 'ncd') return 'yes';
  if (d.states) return d.states.includes(state) ? 'yes' : 'no';
  const p = d.placement;
  if (!p || p.jurisdictions.length === 0 || p.unplaced.length > 0) return p?.jurisdictions.some((j) => coversState(j, state)) ? 'yes' : 'unplaced';
  return p.jurisdictions.some((j) => coversState(j, state)) ? 'yes' : 'no';
}

/** Who issued a document: the download's contractor names, else the listing's. */
export const contractorNames = (d: MedicareDoc): string[] => [...new Set(d.contractors.some((c) => c.name) ? d.contractors.map((c) => c.name!).filter(Boolean) : (d.listing.at(-1)?.contractors ?? []).map((c) => c.name))];

const placementOf = (d: MedicareDoc) => ({ jurisdiction_resolved: d.placement?.resolved ?? false, jurisdictions: (d.placement?.jurisdictions ?? []).map((j) => j.jurisdiction) });

/** What one Medicare document requires, in words: its title, the covered diagnoses, its documentation requirements. */
function ruleText(d: MedicareDoc, v: DocVersion): string {
  const parts = [v.title];
  const n = d.covered.length;
  if (n) parts.push(`Covered when billed with one of the ${n} ICD-10-CM codes the article lists (${d.covered.slice(0, 5).join(', ')}${n > 5 ? ', ...' : ''})`);
  if (d.coverage?.doc_reqs) parts.push(`Documentation: ${d.coverage.doc_reqs}`);
  if (d.kind === 'lcd' && d.related.length) parts.push(`Billing and coding: ${d.related.join(', ')}`);
  return parts.join('. ').replace(/\.\./g, '.');
}

function medicareRule(d: MedicareDoc, v: DocVersion, code: string, payerSlug: string, depth: number): PolicyRule {
  return {
    code,
    doc_id: d.doc_id,
    kind: d.kind,
    pdf_uri: v.url,
    rule_text: ruleText(d, v),
    source_key: 'cms_mcd',
    action: 'coverage_criteria',
    ...(v.effective_date ? { effective_from: v.effective_date } : {}),
    lineage_root_doc_id: d.doc_id,
    ...(d.kind === 'article' && d.related[0] ? { parent_doc_id: d.related[0] } : {}),
    ...(d.covered.length ? { trigger_condition: `billed without one of the ${d.covered.length} covered ICD-10-CM codes of ${d.doc_id}` } : {}),
    discovery_depth: depth,
    license_kind: 'public',
    payer_slug: payerSlug,
    document_version: v.version,
    illustrative: d.illustrative,
    ...(d.kind === 'ncd' ? {} : placementOf(d)),
  };
}

/** A curated commercial rule as a policy rule (`code` null in the row: the rule covers the code asked). */
export function commercialRule(r: PolicyRuleRow, code: string): PolicyRule {
  return {
    code: r.code ?? code,
    doc_id: r.doc_id,
    kind: r.kind,
    pdf_uri: r.pdf_uri ?? r.citation.url,
    rule_text: r.rule_text,
    source_key: r.source_key ?? `payers:${r.payer_slug}`,
    ...(r.action ? { action: r.action } : {}),
    ...(r.change_type ? { change_type: r.change_type } : {}),
    ...(r.effective_from ? { effective_from: r.effective_from } : {}),
    lineage_root_doc_id: r.lineage[0] ?? r.doc_id,
    ...(r.lineage.length ? { parent_doc_id: r.lineage.at(-1)! } : {}),
    ...(r.trigger_condition ? { trigger_condition: r.trigger_condition } : {}),
    discovery_depth: 0,
    license_kind: r.license_kind ?? 'unknown',
    payer_slug: r.payer_slug,
    rule_id: r.rule_id,
    illustrative: false,
    citation: r.citation,
  };
}

/** The payer a policy question is for: its slug, and whether it is Medicare FFS (CMS documents apply). */
export interface PolicyPayer {
  slug: string;
  medicare: boolean;
}

/**
 * The policy rules of a payer for a code on a date: Medicare FFS gets the billing articles that
 * list the code (in force that day) and, one step further, their LCDs, kept to the MAC
 * jurisdictions of `state` when given; every payer gets its curated rules naming the code (or
 * no code). What was read and every caveat (illustrative rows, an unresolved jurisdiction) goes
 * on the trace. One home for payment composition, claim intelligence and knowledge resolve L4.
 */
export async function policyRulesFor(snapshot: SnapshotReader, q: { payer: PolicyPayer; code: string; date: string; state?: string | null }, trace: Trace): Promise<PolicyRule[]> {
  const idx = await policyIndex(snapshot);
  const rules: PolicyRule[] = [];
  if (q.payer.medicare) {
    if (!idx.versions.mcd_coverage) trace.warn('policy_rules: mcd_coverage is not loaded, so no Medicare LCD or article lists codes and none is checked');
    else trace.use('mcd_coverage', idx.versions.mcd_coverage);
    const seen = new Set<string>();
    let unplaced = false;
    const keep = (d: MedicareDoc, depth: number) => {
      if (seen.has(d.doc_id)) return;
      const v = versionOn(d, q.date);
      const where = q.state ? inState(d, q.state) : 'yes';
      if (!v.in_force || where === 'no') return;
      seen.add(d.doc_id);
      unplaced ||= where === 'unplaced' || (q.state !== undefined && q.state !== null && d.states === null && d.placement?.resolved === false);
      if (d.listing.length) trace.use('mcd_documents', idx.versions.mcd_documents);
      if (d.placement) trace.use('mac_jurisdictions', idx.versions.mac_jurisdictions);
      rules.push(medicareRule(d, v, q.code, q.payer.slug, depth));
    };
    for (const id of idx.articlesByCode.get(q.code) ?? []) {
      const a = idx.medicare.get(id)!;
      if (seen.has(id)) continue;
      keep(a, 0);
      if (!seen.has(id)) continue;
      for (const l of a.related) if (idx.medicare.has(l)) keep(idx.medicare.get(l)!, 1);
    }
    if (rules.some((r) => r.illustrative)) trace.warn('policy_rules: the Medicare coverage rows are illustrative seeds (no real MCD code-level export is loaded): do not rely on them');
    if (unplaced) trace.warn(`policy_rules: some Medicare documents are placed in ${q.state} by their contractor only (jurisdiction_resolved false), so the list may over-include until an MCD export with contract numbers is loaded`);
  }
  const own = idx.commercial.filter((d) => d.payer_slug === q.payer.slug).flatMap((d) => d.rules.filter((r) => r.code === null || r.code === q.code));
  if (own.length) trace.use('payers', idx.versions.payers);
  return [...rules, ...own.map((r) => commercialRule(r, q.code))];
}

/** The filter of `GET /v1/policies` (a payer already resolved). */
export interface PolicyFilter {
  payer?: PolicyPayer;
  code?: string;
  state?: string;
  q?: string;
}

const KIND_ORDER: Record<string, number> = { ncd: 0, lcd: 1, article: 2 };

/**
 * The policy documents matching a filter, as of `date` (the version in force that day), ordered
 * by payer, kind (NCD, LCD, article, then commercial kinds) and id. An unknown code lists nothing.
 */
export function findPolicies(idx: PolicyIndex, f: PolicyFilter, date: string): { documents: PolicyDocument[]; unplaced: boolean } {
  const words = f.q?.toLowerCase().split(/\s+/).filter(Boolean) ?? [];
  const matchesText = (id: string, title: string) => words.every((w) => `${id} ${title}`.toLowerCase().includes(w));
  const out: PolicyDocument[] = [];
  let unplaced = false;
  if (!f.payer || f.payer.medicare) {
    for (const d of idx.medicare.values()) {
      if (f.code && !d.codes.includes(f.code)) continue;
      const where = f.state ? inState(d, f.state) : 'yes';
      if (where === 'no') continue;
      const v = versionOn(d, date);
      if (!matchesText(d.doc_id, v.title)) continue;
      unplaced ||= where === 'unplaced' || (f.state !== undefined && d.states === null && d.placement?.resolved === false);
      const p = placementOf(d);
      out.push({
        payer_slug: f.payer?.slug ?? MEDICARE_FFS,
        doc_id: d.doc_id,
        kind: d.kind,
        title: v.title,
        version: v.version,
        effective_date: v.effective_date,
        retirement_date: v.retirement_date,
        url: v.url,
        codes: d.codes,
        codes_loaded: d.coverage !== null,
        contractors: contractorNames(d),
        jurisdictions: p.jurisdictions,
        jurisdiction_resolved: d.kind === 'ncd' ? null : p.jurisdiction_resolved,
        illustrative: d.illustrative,
        sources: [...(d.listing.length ? ['mcd_documents'] : []), ...(d.coverage ? ['mcd_coverage'] : []), ...(d.placement ? ['mac_jurisdictions'] : [])],
      });
    }
  }
  if (!f.payer || !f.payer.medicare) {
    for (const d of idx.commercial) {
      if (f.payer && d.payer_slug !== f.payer.slug) continue;
      const codes = [...new Set(d.rules.map((r) => r.code).filter((c): c is string => c !== null))];
      if (f.code && !codes.includes(f.code)) continue;
      const head = d.rules[0]!;
      if (!matchesText(d.doc_id, head.citation.title)) continue;
      const dates = d.rules.map((r) => r.effective_from).filter((x): x is string => x !== null).sort();
      out.push({
        payer_slug: d.payer_slug,
        doc_id: d.doc_id,
        kind: head.kind,
        title: head.citation.title,
        version: null,
        effective_date: dates.at(-1) ?? null,
        retirement_date: null,
        url: head.pdf_uri ?? head.citation.url,
        codes,
        codes_loaded: true,
        contractors: [],
        jurisdictions: [],
        jurisdiction_resolved: null,
        illustrative: false,
        sources: ['payers'],
      });
    }
  }
  out.sort((a, b) => a.payer_slug.localeCompare(b.payer_slug) || (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9) || a.doc_id.localeCompare(b.doc_id));
  return { documents: out, unplaced };
}

/** The ICD-10-CM codes a billing article covers (as printed, with the dot); empty for other documents. */
export function coveredDiagnoses(idx: PolicyIndex, docId: string): string[] {
  return idx.medicare.get(docId)?.covered ?? [];
}

/** A payers-dataset payer as a policy question sees it. */
export const policyPayer = (p: { slug: string; payer_type: string }): PolicyPayer => ({ slug: p.slug, medicare: p.payer_type === 'medicare' });

/** A contractor or jurisdiction a question names: a jurisdiction (`J15`, `JE`, `DME B`), a contract number (`01112`) or a contractor's name. */
export type ContractorFilter = { jurisdiction: string } | { number: string } | { name: string };

/** Reads a jurisdiction, contract number or contractor name as typed (`jl`, `DME-B`, `01112`, `Noridian`). */
export function parseContractorFilter(text: string): ContractorFilter {
  const t = text.trim();
  const j = /^(?:jurisdiction\s+)?(J[A-Z0-9]{1,2}|DME\s*-?\s*[A-D])$/i.exec(t);
  if (j) return { jurisdiction: j[1]!.toUpperCase().replace(/^DME\s*-?\s*/, 'DME ') };
  if (/^\d{5}$/.test(t)) return { number: t };
  return { name: t };
}

/** The filter in words, for answers. */
export const contractorFilterText = (f: ContractorFilter): string => ('jurisdiction' in f ? `jurisdiction ${f.jurisdiction}` : 'number' in f ? `contract ${f.number}` : `contractor "${f.name}"`);

/** Whether a document was issued by the contractor or in the jurisdiction a filter names ('unplaced': its contractor is not known). */
function byContractor(d: MedicareDoc, f: ContractorFilter): 'yes' | 'no' | 'unplaced' {
  if (d.kind === 'ncd') return 'yes';
  if ('jurisdiction' in f) {
    const p = d.placement;
    if (!p || p.jurisdictions.length === 0) return 'unplaced';
    return p.jurisdictions.some((j) => j.jurisdiction === f.jurisdiction) ? 'yes' : 'no';
  }
  if ('number' in f) {
    const numbers = d.contractors.map((c) => c.number).filter((n) => n !== null);
    if (numbers.length === 0) return 'unplaced';
    return numbers.includes(f.number) ? 'yes' : 'no';
  }
  const names = contractorNames(d);
  if (names.length === 0) return 'unplaced';
  const key = contractorKey(f.name);
  return names.some((n) => contractorKey(n).includes(key)) ? 'yes' : 'no';
}

/** Where a coverage question applies: the state of the facility (or the one asked), a contractor or jurisdiction named. */
export interface CoverageScope {
  state?: string | null;
  contractor?: ContractorFilter | null;
}

/** A Medicare document found for a code, in force on the date. */
export interface CoverageHit {
  doc: MedicareDoc;
  version: DocVersion;
  /** False when its contractor is not known, so it is kept though it may not apply in the scope. */
  placed: boolean;
}

/** The Medicare documents of a code on a date, in a scope (see `coverageForCode`). */
export interface CodeCoverage {
  /** Billing articles listing the code. */
  articles: CoverageHit[];
  /** LCDs listing the code themselves (lcd_x_hcpc_code), not through an article found. */
  lcds: CoverageHit[];
  /** NCDs whose text names the code (`via` empty), or that a document found names as related (`via` its ids). */
  ncds: (CoverageHit & { via: string[] })[];
  /** Documents listing the code that the scope leaves out (another contractor's, another state's). */
  outOfScope: { doc_id: string; kind: string; contractors: string[]; jurisdictions: string[]; states: string[] | null }[];
}

/**
 * The Medicare documents that decide a code's coverage on a date: the billing articles listing
 * it and the LCDs listing it themselves, kept to the scope (a state: the documents its contracts
 * cover; a contractor or jurisdiction: that one's documents; a document whose contractor is not
 * known is kept, `placed: false`), and the NCDs, national, whose text names the code or that a
 * document found names as related. The medical-necessity agent's one lookup.
 */
export function coverageForCode(idx: PolicyIndex, code: string, date: string, scope: CoverageScope): CodeCoverage {
  const out: CodeCoverage = { articles: [], lcds: [], ncds: [], outOfScope: [] };
  const where = (d: MedicareDoc): 'yes' | 'no' | 'unplaced' => {
    const a = scope.state ? inState(d, scope.state) : 'yes';
    const b = scope.contractor ? byContractor(d, scope.contractor) : 'yes';
    return a === 'no' || b === 'no' ? 'no' : a === 'unplaced' || b === 'unplaced' ? 'unplaced' : 'yes';
  };
  const take = (ids: string[] | undefined, into: CoverageHit[], skip: Set<string>) => {
    for (const id of ids ?? []) {
      const d = idx.medicare.get(id)!;
      if (skip.has(id)) continue;
      const v = versionOn(d, date);
      if (!v.in_force) continue;
      const w = where(d);
      if (w === 'no') {
        out.outOfScope.push({ doc_id: d.doc_id, kind: d.kind, contractors: contractorNames(d), jurisdictions: placementOf(d).jurisdictions, states: d.states });
        continue;
      }
      into.push({ doc: d, version: v, placed: w === 'yes' });
    }
  };
  take(idx.articlesByCode.get(code), out.articles, new Set());
  take(idx.lcdsByCode.get(code), out.lcds, new Set(out.articles.flatMap((a) => a.doc.related)));
  const via = new Map<string, string[]>();
  for (const id of idx.ncdsByCode.get(code) ?? []) via.set(id, []);
  for (const h of [...out.articles, ...out.lcds, ...out.articles.flatMap((a) => a.doc.related.map((l) => ({ doc: idx.medicare.get(l) })))]) {
    for (const n of h.doc?.ncds ?? []) via.set(n, [...new Set([...(via.get(n) ?? []), h.doc!.doc_id])]);
  }
  for (const [id, v] of via) {
    const d = idx.medicare.get(id);
    if (!d) continue;
    const version = versionOn(d, date);
    if (version.in_force) out.ncds.push({ doc: d, version, placed: true, via: v });
  }
  return out;
}
