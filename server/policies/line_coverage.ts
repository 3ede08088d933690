import { undotted } from '../../datasets/icd10cm/dataset.js';
import { coverageForCode, type CoverageHit, type PolicyIndex } from './service.js';

/**
 * One claim line's Medicare coverage by its diagnoses: the billing articles that list its code in
 * the state of service on the date and carry a covered-diagnosis list, and whether a diagnosis the
 * line points at is on one. The one home of the answer both claim paths give (`POST
 * /v1/ncci/validate` with diagnoses, and the 837 claim check), so they never disagree.
 */
export interface LineCoverage {
  /** `covered`: a pointed diagnosis is listed; `repoint`: another diagnosis of the claim is; `abn_on_file` (GA) or `not_covered` otherwise. */
  verdict: 'covered' | 'repoint' | 'abn_on_file' | 'not_covered';
  message: string;
  /** The covering diagnosis (`covered`) or the claim's diagnosis to point at (`repoint`). */
  diagnosis: string | null;
  citations: { title: string; url: string }[];
}

/**
 * The line's coverage, or null when no billing article with a covered-diagnosis list lists the
 * code in the scope (nothing to decide by diagnosis). `pointed`: the diagnoses the line points at;
 * `others`: the claim's other diagnoses.
 */
export function lineCoverage(idx: PolicyIndex, version: string, l: { code: string; date: string; modifiers: readonly string[] }, state: string | null, pointed: readonly string[], others: readonly string[]): LineCoverage | null {
  const lists = coverageForCode(idx, l.code, l.date, { state }).articles.filter((h) => h.doc.covered.length > 0);
  if (lists.length === 0) return null;
  const citations = lists.map((h) => ({ title: `${h.doc.doc_id} v${h.version.version} "${h.version.title}" (mcd_coverage ${version})`, url: h.version.url ?? 'https://www.cms.gov/medicare-coverage-database/' }));
  const covers = (code: string): CoverageHit | undefined => lists.find((h) => h.doc.covered.some((c) => undotted(c) === undotted(code)));
  const where = `${lists.map((h) => h.doc.doc_id).join(', ')}${state ? ` (${state})` : ''}`;
  const hit = pointed.map((d) => ({ d, h: covers(d) })).find((x) => x.h);
  if (hit) return { verdict: 'covered', message: `${l.code} with ${hit.d}: covered by ${hit.h!.doc.doc_id}${state ? ` (${state})` : ''}`, diagnosis: hit.d, citations };
  const said = pointed.length ? `${pointed.join(', ')} ${pointed.length === 1 ? 'is' : 'are'} not on the covered list of ${where}` : `the line points at no diagnosis the covered list of ${where} could match`;
  const other = others.find((d) => !pointed.includes(d) && covers(d));
  if (other) return { verdict: 'repoint', message: `${l.code}: ${said}; ${other} on this claim is: point the line at it if the record supports it`, diagnosis: other, citations };
  if (l.modifiers.includes('GA')) return { verdict: 'abn_on_file', message: `${l.code}: ${said}; GA says an ABN is on file, so the beneficiary is liable (PR-50)`, diagnosis: null, citations };
  return { verdict: 'not_covered', message: `${l.code}: ${said} and no other diagnosis of the claim is; without an ABN (GA) the provider is liable${l.modifiers.includes('GZ') ? ' (GZ: none was given)' : ''}`, diagnosis: null, citations };
}
