import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { icd10Index } from '../../datasets/icd10cm/queries.js';
import { drugDirectory } from '../drugs/service.js';
import { FileShared } from '../../warehouse/file_shared.js';

/** One searchable term: a UMLS atom, or a code's name in a public vocabulary we hold. */
export interface ConceptEntry {
  /** UMLS concept id; null for a term from a non-UMLS source. */
  cui: string | null;
  term: string;
  sab: string;
  source_code: string;
  term_type: string;
  dataset: string;
  version: string;
}

export interface ConceptIndex {
  entries: ConceptEntry[];
  /** Sorted distinct words, and for each the entries holding it. */
  words: string[];
  postings: Map<string, number[]>;
  /** Code as typed (upper case, no dot) -> entries. */
  codes: Map<string, number[]>;
  /** dataset -> version used. */
  versions: Record<string, string>;
  /** Each dataset's normalised terms, for exact and prefix tiers. */
  norm: string[];
}

/** Lower case, accents folded, letters and digits only, single spaces. */
export const normalise = (s: string): string =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
export const codeKey = (s: string): string => s.trim().toUpperCase().replace(/\./g, '');

interface UmlsAtom {
  cui: string;
  sab: string;
  tty: string;
  code: string;
  str: string;
}

/** The latest loaded version of a dataset, or null. */
const latest = (snapshot: SnapshotReader, dataset: string) => snapshot.versions(dataset).at(-1)?.version ?? null;

/**
 * Every term the concept search reads, from what the snapshot holds: English, unsuppressed UMLS
 * atoms (`umls_concepts`), ICD-10-CM codes (`icd10cm`), RxNorm ids of FDA products (`fda_ndc`'s
 * openFDA fields, named by the product's brand or generic name) and CPT/HCPCS short descriptors
 * (`mpfs_rvu`, latest release). Built once per snapshot and kept (warmed at mount).
 */
export function conceptIndex(snapshot: SnapshotReader): Promise<ConceptIndex> {
  return snapshot.memo(
    'concepts:index',
    async () => {
      // Shared by every snapshot mounting the same files of the four sources (a swap of another dataset rebuilds nothing).
      const files = SOURCES.map((d) => snapshot.versions(d).map((v) => v.file).join(',')).join('|');
      const ix = await shared.get(snapshot, 'concepts', files, () => buildIndex(snapshot));
      shared.prune(snapshot, 'concepts', [files]);
      return ix!;
    },
    { pin: true },
  );
}

const SOURCES = ['umls_concepts', 'icd10cm', 'fda_ndc', 'mpfs_rvu'];
const shared = new FileShared<ConceptIndex>();

async function buildIndex(snapshot: SnapshotReader): Promise<ConceptIndex> {
  const entries: ConceptEntry[] = [];
  const versions: Record<string, string> = {};
  const umls = latest(snapshot, 'umls_concepts');
  if (umls) {
    versions.umls_concepts = umls;
    const atoms = await snapshot.all<UmlsAtom>(
      "SELECT cui, sab, tty, code, str FROM umls_concepts WHERE version = $1 AND lat = 'ENG' AND suppress NOT IN ('O', 'E', 'Y') ORDER BY cui, aui",
      [umls],
    );
    for (const a of atoms) entries.push({ cui: a.cui, term: a.str, sab: a.sab, source_code: a.code, term_type: a.tty, dataset: 'umls_concepts', version: umls });
  }
  const icd = await icd10Index(snapshot);
  if (icd) {
    versions.icd10cm = icd.version;
    for (const r of icd.codes.values()) {
      const term = r.long_description ?? r.short_description;
      if (term) entries.push({ cui: null, term, sab: 'ICD10CM', source_code: r.code_dotted, term_type: r.billable ? 'PT' : 'HT', dataset: 'icd10cm', version: icd.version });
    }
  }
  const drugs = await drugDirectory(snapshot);
  if (drugs) {
    versions.fda_ndc = drugs.version;
    const seen = new Set<string>();
    for (const p of drugs.products) {
      const name = p.brand_name ?? p.generic_name;
      if (!p.openfda_rxcui || !name) continue;
      for (const rxcui of p.openfda_rxcui.split('; ')) {
        const k = `${rxcui}\u0000${name.toLowerCase()}`;
        if (seen.has(k)) continue;
        seen.add(k);
        entries.push({ cui: null, term: name, sab: 'RXNORM', source_code: rxcui, term_type: p.brand_name ? 'openfda_brand' : 'openfda_generic', dataset: 'fda_ndc', version: drugs.version });
      }
    }
  }
  const rvu = latest(snapshot, 'mpfs_rvu');
  if (rvu) {
    versions.mpfs_rvu = rvu;
    const rows = await snapshot.all<{ hcpcs: string; description: string }>(
      "SELECT hcpcs, min(description) AS description FROM mpfs_rvu WHERE version = $1 AND modifier = '' GROUP BY hcpcs ORDER BY hcpcs",
      [rvu],
    );
    for (const r of rows) {
      if (!r.description) continue;
      entries.push({ cui: null, term: r.description, sab: /^\d{4}[0-9A-Z]$/.test(r.hcpcs) ? 'CPT' : 'HCPCS', source_code: r.hcpcs, term_type: 'SD', dataset: 'mpfs_rvu', version: rvu });
    }
  }
  return build(entries, versions);
}

function build(entries: ConceptEntry[], versions: Record<string, string>): ConceptIndex {
  const postings = new Map<string, number[]>();
  const codes = new Map<string, number[]>();
  const norm: string[] = [];
  entries.forEach((e, i) => {
    const n = normalise(e.term);
    norm.push(n);
    for (const w of new Set(n.split(' '))) {
      if (!w) continue;
      let l = postings.get(w);
      if (!l) postings.set(w, (l = []));
      l.push(i);
    }
    const c = codeKey(e.source_code);
    let l = codes.get(c);
    if (!l) codes.set(c, (l = []));
    l.push(i);
  });
  return { entries, words: [...postings.keys()].sort(), postings, codes, versions, norm };
}

/** Index of the first word >= `prefix` in a sorted list. */
function lowerBound(words: string[], prefix: string): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Entries holding a word that starts with `prefix` (every word, when it is the whole word too). */
function entriesWithPrefix(ix: ConceptIndex, prefix: string): Set<number> {
  const out = new Set<number>();
  for (let i = lowerBound(ix.words, prefix); i < ix.words.length && ix.words[i]!.startsWith(prefix); i++) {
    for (const e of ix.postings.get(ix.words[i]!)!) out.add(e);
  }
  return out;
}

export interface ConceptHit {
  entry: ConceptEntry;
  /** 0 the code itself, 1 the whole term, 2 the term's start, 3 every word whole, 4 every word as a prefix. */
  tier: number;
}

/**
 * Terms matching `q`, best first: the code as typed (`E11.9`, `E119`, `99213`, an RxCUI), then a
 * term equal to the query, then one starting with it, then terms holding every query word whole,
 * then as prefixes; within a tier shorter terms first, UMLS atoms before other sources, then code.
 */
export function searchConcepts(ix: ConceptIndex, q: string, sabs: string[] | null): ConceptHit[] {
  const allowed = (e: ConceptEntry) => sabs === null || sabs.includes(e.sab);
  const tiers = new Map<number, number>();
  for (const i of ix.codes.get(codeKey(q)) ?? []) if (allowed(ix.entries[i]!)) tiers.set(i, 0);
  const nq = normalise(q);
  const words = nq.split(' ').filter(Boolean);
  if (words.length) {
    let match: Set<number> = entriesWithPrefix(ix, words[0]!);
    for (const w of words.slice(1)) {
      if (match.size === 0) break;
      const hits = entriesWithPrefix(ix, w);
      match = new Set([...match].filter((i) => hits.has(i)));
    }
    for (const i of match) {
      if (tiers.has(i) || !allowed(ix.entries[i]!)) continue;
      const n = ix.norm[i]!;
      const own = new Set(n.split(' '));
      tiers.set(i, n === nq ? 1 : n.startsWith(nq) ? 2 : words.every((w) => own.has(w)) ? 3 : 4);
    }
  }
  return [...tiers]
    .map(([i, tier]) => ({ i, tier }))
    .sort((a, b) => {
      const ea = ix.entries[a.i]!;
      const eb = ix.entries[b.i]!;
      return a.tier - b.tier || ea.term.length - eb.term.length || Number(eb.cui !== null) - Number(ea.cui !== null) || ea.source_code.localeCompare(eb.source_code) || a.i - b.i;
    })
    .map(({ i, tier }) => ({ entry: ix.entries[i]!, tier }));
}
