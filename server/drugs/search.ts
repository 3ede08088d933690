import { productNdcOfQuery, toProductNdc9 } from '../../datasets/_shared/ndc.js';
import { editDistance } from '../text_match.js';

/**
 * Drug product search over the whole NDC directory (openFDA's 2020 export held 111,502 products):
 * by product NDC in any form, brand, generic or labeler name, typo tolerant. Built once per
 * snapshot: a word vocabulary (sorted, for exact and prefix matches by binary search, bucketed by
 * length with a letter bitmask for typos) with a posting list of products per word. A query
 * touches only the products its words name, so it costs what it matches, not the directory size.
 */

/** What the index needs of a product. */
export interface SearchableProduct {
  product_ndc: string;
  brand_name: string | null;
  generic_name: string | null;
  labeler_name: string | null;
}

export interface DrugIndex {
  size: number;
  /** 9-digit 5-4 product code -> products (a product NDC may have several SPLs). */
  byNdc: Map<string, number[]>;
  /** Distinct words of brand, generic and labeler names, sorted. */
  vocab: string[];
  /** Products carrying vocabulary word v (ascending, unique): `postings[postingStart[v]]` up to `postings[postingStart[v + 1]]`, one array for all (an array per word cost 1 s and tens of MB at 111,502 products). */
  postingStart: Int32Array;
  postings: Int32Array;
  /** Letter bitmask per vocabulary word (a-z, 0-9 folded): an edit changes at most two bits. */
  masks: Int32Array;
  /** Vocabulary indexes by word length, for typo candidates. */
  byLength: Map<number, number[]>;
  /** Normalised brand and generic names, for whole-name prefix ranking. */
  brand: string[];
  generic: string[];
}

/** Lower case, accents dropped (`Gmünd` -> `gmund`), anything but letters and digits one space. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

function maskOf(w: string): number {
  let m = 0;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    m |= 1 << (c >= 97 ? (c - 97) % 31 : 26 + ((c - 48) % 5));
  }
  return m;
}

/** Bits set in a 32-bit word (the SWAR count: no loop). */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Builds the search index of a directory's products (in the order given: results refer to it). */
export function buildDrugIndex(products: SearchableProduct[]): DrugIndex {
  const byNdc = new Map<string, number[]>();
  const words = new Map<string, number[]>();
  const brand: string[] = [];
  const generic: string[] = [];
  products.forEach((p, i) => {
    const key = toProductNdc9(p.product_ndc) ?? p.product_ndc;
    const l = byNdc.get(key);
    if (l) l.push(i);
    else byNdc.set(key, [i]);
    const b = normalizeText(p.brand_name ?? '');
    const g = normalizeText(p.generic_name ?? '');
    brand.push(b);
    generic.push(g);
    for (const w of new Set(`${b} ${g} ${normalizeText(p.labeler_name ?? '')}`.split(' '))) {
      if (!w) continue;
      const post = words.get(w);
      if (!post) words.set(w, [i]);
      else if (post[post.length - 1] !== i) post.push(i);
    }
  });
  const vocab = [...words.keys()].sort();
  const postingStart = new Int32Array(vocab.length + 1);
  vocab.forEach((w, v) => (postingStart[v + 1] = postingStart[v]! + words.get(w)!.length));
  const postings = new Int32Array(postingStart[vocab.length]!);
  vocab.forEach((w, v) => postings.set(words.get(w)!, postingStart[v]!));
  const masks = Int32Array.from(vocab, maskOf);
  const byLength = new Map<number, number[]>();
  vocab.forEach((w, i) => {
    const l = byLength.get(w.length);
    if (l) l.push(i);
    else byLength.set(w.length, [i]);
  });
  return { size: products.length, byNdc, vocab, postingStart, postings, masks, byLength, brand, generic };
}

/** First vocabulary index whose word is >= `w`. */
function lowerBound(vocab: string[], w: string): number {
  let lo = 0;
  let hi = vocab.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (vocab[mid]! < w) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Vocabulary words one typed word matches, with a weight: 1 the word itself, 0.9 a word it begins
 * (typed words of 2+ characters), and for words of 4+ characters absent from the vocabulary,
 * words within 1 edit (2 from 8 characters; adjacent transpositions count one) at 0.7 / 0.6.
 */
function matchWord(idx: DrugIndex, w: string): [number, number][] {
  const out: [number, number][] = [];
  const start = lowerBound(idx.vocab, w);
  const exact = idx.vocab[start] === w;
  if (exact) out.push([start, 1]);
  if (w.length >= 2) {
    for (let i = exact ? start + 1 : start; i < idx.vocab.length && idx.vocab[i]!.startsWith(w); i++) out.push([i, 0.9]);
  }
  if (!exact && w.length >= 4) {
    const k = w.length >= 8 ? 2 : 1;
    const m = maskOf(w);
    for (let len = w.length - k; len <= w.length + k; len++) {
      for (const v of idx.byLength.get(len) ?? []) {
        if (popcount(idx.masks[v]! ^ m) > 2 * k) continue;
        const word = idx.vocab[v]!;
        if (word.startsWith(w)) continue; // already a prefix match
        const d = editDistance(w, word, k);
        if (d <= k) out.push([v, 0.8 - 0.1 * d]);
      }
    }
  }
  return out;
}

/** How a product matched: its rank tier, then its word score. */
export interface DrugHit {
  index: number;
  /** 3 the product NDC; 2 a brand or generic name that is or begins with the text; 1 every word (or its start) found; 0 with typos. */
  tier: number;
  score: number;
}

/**
 * Products matching `q`, best first, and how many match in all: the product NDC the text names
 * (any form, a package NDC's product included) first, then brand or generic names equal to or
 * beginning with the text, then products carrying every typed word (or a word it begins), then
 * those found only with typos. Ties: higher word score, shorter brand name, then directory order.
 */
export function searchDrugIndex(idx: DrugIndex, q: string, limit: number): { hits: DrugHit[]; total: number } {
  const { tier, score, count, sum, min, best } = scratchOf(idx);
  const touched: number[] = [];
  let firstSeen: number[] = [];
  try {
    const ndc = productNdcOfQuery(q);
    for (const i of (ndc && idx.byNdc.get(ndc)) || []) {
      tier[i] = 3;
      score[i] = 1;
      touched.push(i);
    }
    const qn = normalizeText(q);
    const words = qn ? [...new Set(qn.split(' '))] : [];
    if (words.length && !ndc) {
      // Per product: how many typed words matched so far, the sum of their best weights, and the lowest.
      let candidates: number[] = [];
      words.forEach((w, wi) => {
        const seen: number[] = [];
        for (const [v, weight] of matchWord(idx, w)) {
          for (let j = idx.postingStart[v]!; j < idx.postingStart[v + 1]!; j++) {
            const p = idx.postings[j]!;
            if (count[p] !== wi) continue;
            if (best[p] === 0) seen.push(p);
            if (weight > best[p]!) best[p] = weight;
          }
        }
        for (const p of seen) {
          count[p] = wi + 1;
          sum[p] = sum[p]! + best[p]!;
          if (best[p]! < min[p]!) min[p] = best[p]!;
          best[p] = 0;
        }
        // A later word's products are among the first word's: those are all it wrote.
        if (wi === 0) firstSeen = seen;
        candidates = seen;
      });
      for (const p of candidates) {
        const b = idx.brand[p]!;
        const g = idx.generic[p]!;
        tier[p] = (b && b.startsWith(qn)) || (g && g.startsWith(qn)) ? 2 : min[p]! >= 0.9 ? 1 : 0;
        score[p] = (sum[p]! / words.length) + (b === qn || g === qn ? 0.05 : 0);
        touched.push(p);
      }
    }
    return topOf(idx, tier, score, touched, limit);
  } finally {
    // The word arrays back to their resting values where this query wrote them (tier and score
    // are written for every product a query ranks before they are read).
    for (const p of firstSeen) {
      count[p] = 0;
      sum[p] = 0;
      min[p] = 1;
      best[p] = 0;
    }
  }
}

/**
 * Per-product work arrays of an index, allocated once and reused by every search (a search runs
 * synchronously, so two never share them; each puts back what it wrote): six arrays of 111,502
 * products allocated and zeroed per query cost about a third of a search's time.
 */
interface Scratch {
  tier: Int8Array;
  score: Float32Array;
  count: Uint8Array;
  sum: Float32Array;
  min: Float32Array;
  best: Float32Array;
}
const scratches = new WeakMap<DrugIndex, Scratch>();
function scratchOf(idx: DrugIndex): Scratch {
  let s = scratches.get(idx);
  if (!s) {
    const n = idx.size;
    s = { tier: new Int8Array(n), score: new Float32Array(n), count: new Uint8Array(n), sum: new Float32Array(n), min: new Float32Array(n).fill(1), best: new Float32Array(n) };
    scratches.set(idx, s);
  }
  return s;
}

/** The best `limit` of the touched products, best first, and how many were touched. */
function topOf(idx: DrugIndex, tier: Int8Array, score: Float32Array, touched: number[], limit: number): { hits: DrugHit[]; total: number } {
  const better = (a: number, b: number) => tier[a]! - tier[b]! || score[a]! - score[b]! || idx.brand[b]!.length - idx.brand[a]!.length || b - a;
  // Top `limit` by a bounded insertion: a query may match tens of thousands of products.
  const top: number[] = [];
  for (const p of touched) {
    if (top.length === limit && better(p, top[top.length - 1]!) <= 0) continue;
    let at = top.length;
    while (at > 0 && better(p, top[at - 1]!) > 0) at--;
    top.splice(at, 0, p);
    if (top.length > limit) top.pop();
  }
  return { hits: top.map((i) => ({ index: i, tier: tier[i]!, score: Math.round(score[i]! * 1000) / 1000 })), total: touched.length };
}
