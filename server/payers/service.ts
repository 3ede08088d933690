import { aliasKey, categoriesOf, payerKnowledge, type PayerKnowledge } from '../../datasets/payers/queries.js';
import type { DenialPatternRow, PayerRow, PriorAuthRuleRow } from '../../datasets/payers/schema.js';
import type { X12CodeRow } from '../../datasets/x12_codes/dataset.js';
import { x12StatusOn, type X12Index } from '../../datasets/x12_codes/queries.js';
import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { RawInput, Resolution } from '../route.js';
import { matchPayer, MIN_SCORE } from './search.js';
import { classifyDenial, denialFacts, withDeadline } from '../denials/remedy.js';

export interface PayerHit {
  payer: PayerRow;
  score: number;
  matched_on: 'slug' | 'name' | 'alias';
  matched_text: string;
}

/** Payers matching `q`, best first (ties: more complete knowledge first, then name). */
export function searchPayers(k: PayerKnowledge, q: string, filter: (p: PayerRow) => boolean = () => true): PayerHit[] {
  const hits: PayerHit[] = [];
  for (const p of k.payers.values()) {
    if (!filter(p)) continue;
    const m = matchPayer(q, p);
    if (m.score >= MIN_SCORE) hits.push({ payer: p, score: Math.round(m.score * 1000) / 1000, matched_on: m.on, matched_text: m.text });
  }
  return hits.sort((a, b) => b.score - a.score || b.payer.data_quality_score - a.payer.data_quality_score || a.payer.name.localeCompare(b.payer.name));
}

export const searchResult = (h: PayerHit) => ({
  slug: h.payer.slug,
  name: h.payer.name,
  payer_type: h.payer.payer_type,
  coverage_scope: h.payer.coverage_scope,
  is_active: h.payer.is_active,
  knowledge_depth: h.payer.knowledge_depth,
  data_quality_score: h.payer.data_quality_score,
  matched_on: h.matched_on,
  matched_text: h.matched_text,
  score: h.score,
});

/**
 * The payer a slug or alias names. A slug (`medi_cal`, `Medi-Cal`) or an alias carried by one
 * payer resolves; an alias several payers share (`bcbs`) or an unknown name is a 404 whose
 * `suggestions` lists up to three candidates, never a guess.
 */
export function resolvePayer(k: PayerKnowledge, ref: string): PayerRow {
  const slug = ref.trim().toLowerCase().replace(/[-\s]+/g, '_');
  const direct = k.payers.get(slug);
  if (direct) return direct;
  const owners = k.aliases.get(aliasKey(ref)) ?? [];
  if (owners.length === 1) return k.payers.get(owners[0]!)!;
  const brief = (p: PayerRow) => ({ slug: p.slug, name: p.name });
  if (owners.length > 1) {
    throw new NotFoundError(`'${ref}' names ${owners.length} payers; use one of their slugs`, {
      suggestions: owners.map((s) => brief(k.payers.get(s)!)),
    });
  }
  if (k.payers.size === 0) throw new NotFoundError('no payer knowledge is loaded (dataset payers)');
  const near = searchPayers(k, ref).slice(0, 3);
  throw new NotFoundError(`no payer '${ref}'${near.length ? `; did you mean ${near.map((h) => h.payer.slug).join(', ')}?` : ''}`, { suggestions: near.map((h) => brief(h.payer)) });
}

/** Warnings every answer from a payer's curated rows carries. */
export function payerWarnings(p: PayerRow): string[] {
  const w: string[] = [];
  if (p.review_status === 'unverified') w.push(`${p.slug}: curated from the cited sources but not yet re-verified against them; check the citation before relying on a figure`);
  if (p.knowledge_depth === 'identity') w.push(`${p.slug}: identity only (knowledge_depth identity); the payer's own filing limits and appeal deadlines are not in the loaded knowledge`);
  return w;
}

const CARC = /^(?:\d{1,3}|[A-Z]\d{1,2})$/;
const RARC = /^(?:MA\d{2,3}|[MN]\d{1,3})$/;

export interface ParsedDenialCode {
  matched_as: 'carc' | 'rarc' | 'group+carc';
  group_code: string | null;
  code: string;
}

/**
 * Reads a denial code as billers write it: `CO-50`, `CO50`, `CO 50` (group + CARC), `50` or `A1`
 * (CARC), `N290`, `M15`, `MA130` (RARC). A RARC's letters never read as a group code. Anything
 * else is a 422 naming the forms accepted.
 */
export function parseDenialCode(raw: string): ParsedDenialCode {
  const s = raw.trim().toUpperCase();
  const g = /^(CO|CR|OA|PI|PR)[\s-]*([A-Z0-9]+)$/.exec(s);
  if (g && CARC.test(g[2]!)) return { matched_as: 'group+carc', group_code: g[1]!, code: g[2]!.replace(/^0+(?=\d)/, '') };
  if (RARC.test(s)) return { matched_as: 'rarc', group_code: null, code: s };
  if (CARC.test(s)) return { matched_as: 'carc', group_code: null, code: s.replace(/^0+(?=\d)/, '') };
  throw new ValidationError([
    {
      loc: ['path', 'code'],
      msg: 'not a denial code: give a CARC (50), a group code and CARC (CO-50) or a RARC (N290, MA130)',
      type: 'value_error',
      input: raw,
    },
  ]);
}

/**
 * The denial codes a sentence names, as `parseDenialCode` reads them: a group and CARC (`CO-50`,
 * `PR 1`), a CARC written after its name (`CARC 50`, `reason code 16`) and a RARC (`N290`,
 * `MA130`; not an ICD-10-CM code such as `M54.5`). Null when it names none. The agents' query
 * field: a code in the question stands for the code field left out.
 */
export function denialCodesInText(text: string): { group_code: string | null; carc: string | null; rarc: string | null } | null {
  const s = text.toUpperCase();
  const grouped = /\b(CO|CR|OA|PI|PR)[\s-]?(\d{1,3}|[A-Z]\d{1,2})\b(?![.-]?\d)/.exec(s);
  const named = grouped ? null : /\b(?:CARC|(?:ADJUSTMENT\s+)?REASON\s+CODE)\s*[#:]?\s*(\d{1,3}|[A-Z]\d{1,2})\b(?!\.\d)/.exec(s);
  const remark = /\b(MA\d{2,3}|[MN]\d{1,3})\b(?!\.\d)/.exec(s);
  const carc = grouped ? parseDenialCode(`${grouped[1]}-${grouped[2]}`) : named ? parseDenialCode(named[1]!) : null;
  if (!carc && !remark) return null;
  return { group_code: carc?.group_code ?? null, carc: carc?.code ?? null, rarc: remark ? remark[1]! : null };
}

/** A payer's denial pattern as answered: its printed code, the payer's name and what the denial leaves to do (`classifyDenial`). */
export function denialPattern(k: PayerKnowledge, p: PayerRow, d: DenialPatternRow) {
  const remedy = withDeadline(classifyDenial(denialFacts({ group: d.group_code, carc: d.carc_code, rarcs: d.remark_code ? [d.remark_code] : [], payerType: p.payer_type, payer: p.slug }), k));
  return { ...d, denial_code: d.group_code ? `${d.group_code}-${d.carc_code}` : d.carc_code, payer_name: p.name, remedy };
}

/** The x12_master rows of a parsed code: the CARC (with its group) or the RARC, with its status on `asOf` (a remittance's date). */
export function x12Master(x: X12Index, c: ParsedDenialCode, asOf: string) {
  const group = c.group_code ? x.byKey.get(`group:${c.group_code}`) : undefined;
  const dates = (r: X12CodeRow) => {
    const st = x12StatusOn(r, asOf);
    return { effective_date: r.start_date, last_modified: r.last_modified, stop_date: r.stop_date, notes: r.notes, status: st.status, status_note: st.note };
  };
  if (c.matched_as === 'rarc') {
    const r = x.byKey.get(`rarc:${c.code}`);
    return r ? [{ code_type: 'rarc' as const, carc_code: null, carc_description: null, rarc_code: r.code, rarc_description: r.description, group_code: null, group_description: null, ...dates(r) }] : [];
  }
  const r = x.byKey.get(`carc:${c.code}`);
  return r
    ? [{ code_type: 'carc' as const, carc_code: r.code, carc_description: r.description, rarc_code: null, rarc_description: null, group_code: c.group_code, group_description: group?.description ?? null, ...dates(r) }]
    : [];
}

/** The prior-auth rules of a payer that apply to a code (by code list, range or service category). */
export function matchingPriorAuthRules(k: PayerKnowledge, slug: string, code: string, o: { serviceCategory?: string; planType?: string; state?: string }): PriorAuthRuleRow[] {
  const cats = new Set(categoriesOf(k, code).map((c) => c.category));
  if (o.serviceCategory) cats.add(o.serviceCategory);
  return (k.priorAuth.get(slug) ?? []).filter((r) => {
    if (r.plan_type && o.planType && r.plan_type !== o.planType) return false;
    if (r.state && o.state && r.state !== o.state) return false;
    if (r.codes.includes(code)) return true;
    if (r.code_range_start && r.code_range_end && code.length === r.code_range_start.length && code >= r.code_range_start && code <= r.code_range_end) return true;
    return r.service_category !== null && cats.has(r.service_category);
  });
}

/** Which NCCI edit files apply to a payer's claims, and what the answer should warn about. */
export function ncciEditSetOf(p: PayerRow): { editSet: 'medicare' | 'medicaid'; warning?: string } {
  if (p.ncci_edit_set === 'medicaid') return { editSet: 'medicaid' };
  if (p.payer_type === 'medicare_advantage') return { editSet: 'medicare', warning: 'Medicare Advantage plans follow NCCI but may add their own code-pair edits' };
  if (p.ncci_edit_set === 'medicare') return { editSet: 'medicare' };
  return { editSet: 'medicare', warning: `${p.slug}: not known to apply NCCI; Medicare NCCI edits are shown as the reference, and the payer may apply its own edits` };
}

/**
 * The payer a request names at `loc` (a slug or alias): the row, or null when none was given or
 * it is unknown; an unknown one is a 422 issue naming it (with "did you mean" suggestions).
 */
export function payerAt(k: PayerKnowledge, raw: unknown, loc: (string | number)[]): Resolution<PayerRow | null> {
  if (typeof raw !== 'string' || raw.trim() === '') return { issues: [], value: null };
  try {
    return { issues: [], value: resolvePayer(k, raw) };
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    return { issues: [{ loc, msg: e.message, type: 'value_error', input: raw, ...(e.extra.suggestions ? { ctx: { suggestions: e.extra.suggestions } } : {}) }], value: null };
  }
}

/**
 * The `resolve` step of a route whose input names a payer (`query.payer`, `body.payer_slug`):
 * looks it up once in the loaded payers dataset; the handler gets `{payer}`. Only the row: the
 * resolved value is memoised with the validated input, sized by its bytes, so it must not carry
 * the snapshot-wide payer knowledge (handlers that need it ask `payerKnowledge`, memoised per
 * snapshot).
 */
export const resolvePayerIn =
  (where: 'query' | 'body', field: string) =>
  async (input: RawInput, snapshot: SnapshotReader | null): Promise<Resolution<{ payer: PayerRow | null }>> => {
    const raw = where === 'query' ? input.query[field] : (input.body as Record<string, unknown> | undefined)?.[field];
    const r = payerAt(await payerKnowledge(snapshot!), raw, [where, field]);
    return { issues: r.issues, value: { payer: r.value } };
  };
