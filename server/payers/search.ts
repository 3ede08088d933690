/**
 * Fuzzy payer name matching: what billing staff type ("united helthcare", "bcbs il", "Medi-Cal")
 * against slugs, names and aliases. Pure functions; the index is built once per snapshot.
 */

/** Lower case, `&` as `and`, anything but letters and digits as one space. */
export function normalizeName(s: string): string {
  return s
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions), capped. */
export function editDistance(a: string, b: string, cap = 3): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const r = new Array<number>(cols).fill(0);
    r[0] = i;
    return r;
  });
  for (let j = 0; j < cols; j++) d[0]![j] = j;
  for (let i = 1; i < rows; i++) {
    let rowMin = Infinity;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > cap) return cap + 1;
  }
  return d[a.length]![b.length]!;
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
