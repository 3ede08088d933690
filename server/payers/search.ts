/**
 * Fuzzy payer name matching: what billing staff type ("united helthcare", "bcbs il", "Medi-Cal")
 * against slugs, names and aliases. Pure functions; the index is built once per snapshot.
 */
import { editDistance } from '../text_match.js';

/** Lower case, `&` as `and`, anything but letters and digits as one space. */
export function normalizeName(s: string): string {
  return s
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** How well one typed word matches one word of a name, 0..1 (prefixes and small typos count). */
function wordScore(q: string, w: string): number {
  if (q === w) return 1;
  if (w.startsWith(q)) return q.length >= 3 ? 0.9 : 0.6;
  if (q.length < 4) return 0;
  const allowed = q.length >= 8 ? 2 : 1;
  const d = Math.min(editDistance(q, w, allowed), editDistance(q, w.slice(0, q.length), allowed));
  return d <= allowed ? 0.8 - 0.1 * d : 0;
}

export interface NameMatch {
  score: number;
  /** `slug`, `name` or `alias`: what matched. */
  on: 'slug' | 'name' | 'alias';
  text: string;
}

/**
 * Scores a normalised query against a normalised name: 1 exact, 0.95 whole-name prefix, 0.9
 * contained as words, otherwise the mean of each query word's best word match (typos allowed on
 * words of 4+ letters) scaled to at most 0.85; 0 when any query word matches nothing.
 */
export function scoreName(query: string, name: string): number {
  if (!query || !name) return 0;
  if (query === name) return 1;
  if (name.startsWith(query) && (name.length === query.length || name[query.length] === ' ' || query.length >= 4)) return 0.95;
  if (` ${name} `.includes(` ${query} `)) return 0.9;
  const words = name.split(' ');
  let total = 0;
  for (const q of query.split(' ')) {
    let best = 0;
    for (const w of words) best = Math.max(best, wordScore(q, w));
    if (best === 0) return 0;
    total += best;
  }
  return (0.85 * total) / query.split(' ').length;
}

export interface Searchable {
  slug: string;
  name: string;
  aliases: string[];
}

/** The best match of `query` over a payer's slug, name and aliases. */
export function matchPayer(query: string, p: Searchable): NameMatch {
  const q = normalizeName(query);
  const candidates: [NameMatch['on'], string][] = [['slug', p.slug], ['name', p.name], ...p.aliases.map((a) => ['alias', a] as [NameMatch['on'], string])];
  let best: NameMatch = { score: 0, on: 'name', text: p.name };
  for (const [on, text] of candidates) {
    const s = scoreName(q, normalizeName(on === 'slug' ? text.replace(/_/g, ' ') : text));
    if (s > best.score) best = { score: s, on, text };
  }
  return best;
}

/** Matches at least this good are search results (and "did you mean" suggestions). */
export const MIN_SCORE = 0.5;
