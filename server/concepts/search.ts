import { sidecarFallback, versionSidecar, type SidecarFallback, type SnapshotReader } from '../../warehouse/snapshot.js';
import { compareKeys, RangeFile, rangeFields, RANGES_SUFFIX } from '../../lib/sidecar/range.js';
import type { DatasetId } from '../../datasets/registry.js';
import { icd10Index } from '../../datasets/icd10cm/queries.js';
import { findRxcuiProducts, ndcVersion } from '../../datasets/fda_ndc/queries.js';
import { FileShared } from '../../warehouse/file_shared.js';
import { atomKey, UMLS_ATOM_FIELDS, UMLS_NORM_SQL, UMLS_WORD_FIELDS } from '../../datasets/umls_concepts/dataset.js';
import { WORD_SUMMARY_PREFIX, WordSummaries } from '../../datasets/umls_concepts/word_summary.js';
import { RXNORM_OPEN_SAB } from '../../datasets/rxnorm/dataset.js';
import { rxnormAtoms } from '../../datasets/rxnorm/queries.js';

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


/** The latest loaded version of a dataset, or null. */
const latest = (snapshot: SnapshotReader, dataset: DatasetId) => snapshot.versions(dataset).at(-1)?.version ?? null;

/**
 * The in-memory index of the public vocabularies the snapshot holds: ICD-10-CM codes (`icd10cm`),
 * RxNorm's own atoms (`rxnorm`: SAB=RXNORM, and with `licensed` the sources it carries under the
 * UMLS licence), RxNorm ids of FDA products (`fda_ndc`'s openFDA fields, named by the product's
 * brand or generic name) and CPT/HCPCS short descriptors (`mpfs_rvu`, latest release). Built once
 * per snapshot and licence setting and kept (warmed at mount). UMLS atoms are not in it: a whole release holds ~8 M English atoms,
 * searched in DuckDB through the release's word table (`searchUmls`).
 */
export function conceptIndex(snapshot: SnapshotReader, licensed = false): Promise<ConceptIndex> {
  return snapshot.memo(
    `concepts:index:${licensed ? 'licensed' : 'open'}`,
    async () => {
      // Shared by every snapshot mounting the same files of the sources (a swap of another dataset rebuilds nothing).
      const files = `${licensed}|${SOURCES.map((d) => snapshot.versions(d).map((v) => v.file).join(',')).join('|')}`;
      const ix = await shared.get(snapshot, `concepts:${licensed}`, files, () => buildIndex(snapshot, licensed));
      shared.prune(snapshot, `concepts:${licensed}`, [files]);
      return ix!;
    },
    { pin: true },
  );
}

const SOURCES = ['icd10cm', 'rxnorm', 'fda_ndc', 'mpfs_rvu'] as const;
const shared = new FileShared<ConceptIndex>();

async function buildIndex(snapshot: SnapshotReader, licensed: boolean): Promise<ConceptIndex> {
  const entries: ConceptEntry[] = [];
  const versions: Record<string, string> = {};
  const icd = await icd10Index(snapshot);
  if (icd) {
    versions.icd10cm = icd.version;
    for (const r of icd.codes.values()) {
      const term = r.long_description ?? r.short_description;
      if (term) entries.push({ cui: null, term, sab: 'ICD10CM', source_code: r.code_dotted, term_type: r.billable ? 'PT' : 'HT', dataset: 'icd10cm', version: icd.version });
    }
  }
  const rx = await rxnormAtoms(snapshot, licensed);
  if (rx) {
    versions.rxnorm = rx.version;
    // An RXNORM atom's code is its RXCUI; another source's atom keeps that source's code.
    for (const a of rx.atoms) entries.push({ cui: null, term: a.str, sab: a.sab, source_code: a.sab === RXNORM_OPEN_SAB ? a.rxcui : a.code, term_type: a.tty, dataset: 'rxnorm', version: rx.version });
  }
  const ndc = ndcVersion(snapshot);
  if (ndc) {
    versions.fda_ndc = ndc.version;
    const seen = new Set<string>();
    for (const p of await findRxcuiProducts(snapshot, ndc.version)) {
      const name = p.brand_name ?? p.generic_name;
      if (!p.openfda_rxcui || !name) continue;
      for (const rxcui of p.openfda_rxcui.split('; ')) {
        const k = `${rxcui}\u0000${name.toLowerCase()}`;
        if (seen.has(k)) continue;
        seen.add(k);
        entries.push({ cui: null, term: name, sab: 'RXNORM', source_code: rxcui, term_type: p.brand_name ? 'openfda_brand' : 'openfda_generic', dataset: 'fda_ndc', version: ndc.version });
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

/** Rank order: tier, shorter terms first, UMLS atoms before other sources, then code, term and dataset (code points). */
function byRank(a: ConceptHit, b: ConceptHit): number {
  const ea = a.entry;
  const eb = b.entry;
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return a.tier - b.tier || ea.term.length - eb.term.length || Number(eb.cui !== null) - Number(ea.cui !== null) || cmp(ea.source_code, eb.source_code) || cmp(ea.term, eb.term) || cmp(ea.dataset, eb.dataset);
}

/** Entries of the in-memory index matching `q`, with their tiers (see `searchConcepts`). */
function searchIndex(ix: ConceptIndex, q: string, sabs: string[] | null): ConceptHit[] {
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
  return [...tiers].map(([i, tier]) => ({ entry: ix.entries[i]!, tier }));
}

/** The query side of `UMLS_NORM_SQL`: accents folded, lower case, letters a-z and digits, single spaces. */
const umlsNorm = (s: string): string =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/**
 * Whether a version's word table stores each atom's normalised string and each word's previous
 * word (`nrm`, `prev`). Version files written before they were stored compute the string per
 * query and keep one row per atom with DISTINCT, about three times the time. Asked once per
 * version and table.
 */
function storesSearchColumns(snapshot: SnapshotReader, version: string, wordTable: string): Promise<boolean> {
  return snapshot.memo(
    `umls_concepts\u0000search-columns\u0000${version}\u0000${wordTable}`,
    () =>
      snapshot
        .all<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${wordTable} WHERE version = $1 AND nrm IS NOT NULL AND prev IS NULL LIMIT 1)`, [version])
        .then(([r]) => Number(r?.n) > 0, () => false),
    { pin: true },
  );
}

/** A UMLS atom's row as the word table and the range sidecar hold it. */
type UmlsRow = { aui: string; cui: string; sab: string; tty: string; code: string; str: string; nrm: string };

const umlsEntry = (r: UmlsRow, version: string): ConceptEntry => ({ cui: r.cui, term: r.str, sab: r.sab, source_code: r.code, term_type: r.tty, dataset: 'umls_concepts', version });

/** The query words matched against UMLS strings: distinct, longest (the most selective prefix) first, at most `MAX_WORDS`. */
function umlsQueryWords(nq: string): string[] {
  return [...new Set(nq.split(' ').filter(Boolean))].sort((a, b) => b.length - a.length).slice(0, MAX_WORDS);
}

/** Whether every query word is a prefix of a word of `nrm`. */
const everyWordPrefix = (words: string[], nrm: string) => words.length > 0 && words.every((w) => wordStartsWith(nrm, w, ` ${w}`));

/** Whether a word of `nrm` (its words single-spaced) starts with `w`; `spaced` is ` ${w}`, made once a search, not a row. */
const wordStartsWith = (nrm: string, w: string, spaced: string) => nrm.startsWith(w) || nrm.includes(spaced);

/** The tier of an atom matching every query word as a prefix: 1 the whole string, 2 its start, 3 every word whole, else 4. */
const umlsTier = (nrm: string, nq: string, words: string[]) => (nrm === nq ? 1 : nrm.startsWith(nq) ? 2 : words.every((w) => ` ${nrm} `.includes(` ${w} `)) ? 3 : 4);

/**
 * Blocks of the words sidecar one search reads at most (128 rows each, about 1 MB inflated): a
 * search that would read more (every row of a wide range: several short words, or a source
 * filter) is ranked by DuckDB, off the event loop.
 */
const MAX_RANGE_BLOCKS = 256;

/** A version's two range sidecars (`umls_concepts`' `ranges` in `datasets/storage.ts`), or null when it lacks either. */
async function umlsSidecars(snapshot: SnapshotReader, version: string): Promise<{ words: RangeFile; atoms: RangeFile } | null> {
  const open = (name: string) => versionSidecar(snapshot, 'umls_concepts', version, `.${name}${RANGES_SUFFIX}`, RangeFile.open);
  const [words, atoms] = await Promise.all([open('words'), open('atoms')]);
  return words && atoms ? { words, atoms } : null;
}

const W = Object.fromEntries(UMLS_WORD_FIELDS.map((f, i) => [f, i])) as Record<(typeof UMLS_WORD_FIELDS)[number], number>;
const A = Object.fromEntries(UMLS_ATOM_FIELDS.map((f, i) => [f, i])) as Record<(typeof UMLS_ATOM_FIELDS)[number], number>;

/** An atom's place in a search's rank order: its tier, then `ord`. */
type Rank = { tier: number; rank: number };
const before = (a: Rank, b: Rank) => a.tier < b.tier || (a.tier === b.tier && a.rank < b.rank);

/** The first `limit` atoms by (tier, ord), ascending, each once; the atoms in `skip` (shown for their code) left out. */
class TopRanks {
  readonly rows: (Rank & { nrm: string; ord: string })[] = [];
  constructor(
    readonly limit: number,
    private readonly skip: Set<string>,
  ) {}

  /** Whether an atom at `r` would not be among them. */
  excludes(r: Rank): boolean {
    return this.limit <= 0 || (this.rows.length === this.limit && !before(r, this.rows[this.limit - 1]!));
  }

  add(nrm: string, ord: string, tier: number): void {
    const row = { nrm, ord, tier, rank: Number(ord) };
    if (this.excludes(row) || this.skip.has(ord) || this.rows.some((r) => r.rank === row.rank)) return;
    let at = this.rows.length;
    while (at > 0 && before(row, this.rows[at - 1]!)) at--;
    this.rows.splice(at, 0, row);
    if (this.rows.length > this.limit) this.rows.pop();
  }
}

/**
 * `searchUmls` from the version's range sidecars: the code's rows and the narrowest word's prefix
 * range read from the words sidecar, filtered, counted and ranked here with the rules and order
 * of the SQL (tier, then `ord`); the atoms shown read from the atoms sidecar. A one-word search
 * without a source filter counts and bounds from the blocks' summaries (`rankOneWord`); any other
 * reads every row of the range (`scanRange`). Null when that reads more than `MAX_RANGE_BLOCKS` blocks.
 */
function searchUmlsRanges(files: { words: RangeFile; atoms: RangeFile }, version: string, q: string, sabs: string[] | null, limit: number): { hits: ConceptHit[]; total: number } | null {
  const nq = umlsNorm(q);
  const words = umlsQueryWords(nq);
  const scan = words[0] ?? '';
  const code = `#${codeKey(q)}`;
  const codeRows = files.words.rowsOf(code).filter((f) => sabs === null || sabs.includes(f[W.sab]!));
  const shown = (ord: string, nrm: string, tier: number): ConceptHit => {
    const key = atomKey(ord);
    const atom = files.atoms.rowsOf(key)[0];
    if (!atom) throw new Error(`umls_concepts ${version}: atom ${key} is not in the atoms sidecar`);
    return { tier, entry: umlsEntry({ aui: atom[A.aui]!, cui: atom[A.cui]!, sab: atom[A.sab]!, tty: atom[A.tty]!, code: atom[A.code]!, str: atom[A.str]!, nrm }, version) };
  };
  const byCode = codeRows.map((f) => shown(f[W.ord]!, f[W.nrm]!, 0));
  if (!scan) return { total: codeRows.length, hits: byCode.sort(byRank).slice(0, limit) };
  const top = new TopRanks(limit, new Set(codeRows.map((f) => f[W.ord]!)));
  const summarised = words.length === 1 && sabs === null && scan.length <= WORD_SUMMARY_PREFIX && files.words.summaryBytes > 0;
  const count = summarised ? rankOneWord(files.words, nq, scan, top) : scanRange(files.words, nq, narrowestFirst(files.words, words), sabs, top);
  if (count === null) return null;
  const total = codeRows.length + count - codeRows.filter((f) => everyWordPrefix(words, f[W.nrm]!)).length;
  return { total, hits: [...byCode, ...top.rows.map((r) => shown(r.ord, r.nrm, r.tier))].sort(byRank).slice(0, limit) };
}

/**
 * The query words with the one whose prefix range spans the fewest blocks first: the range read,
 * the others filters (any word gives the same matches; the longest, DuckDB's choice, is often not
 * the narrowest: `diab mell`, `ab 0x`).
 */
function narrowestFirst(file: RangeFile, words: string[]): string[] {
  if (words.length < 2) return words;
  const blocks = new Map(
    words.map((w) => {
      const { first, end } = file.span(w, `${w}\u007f`);
      return [w, end - first];
    }),
  );
  return [...words].sort((a, b) => blocks.get(a)! - blocks.get(b)!);
}

/**
 * One row per atom in the range of `scan` (the query word read): the one whose previous word
 * is outside it (see the word table). For a row of the range, that is a previous word not
 * starting with `scan` (`word_summary.ts` counts the same by shared characters).
 */
const firstOfAtom = (prev: string, scan: string) => prev === '' || compareKeys(prev, scan) < 0;

/** Counts the atoms of every row in the range of `words[0]` that pass the filters (every other word), ranking them into `top`; null past `MAX_RANGE_BLOCKS`. */
function scanRange(file: RangeFile, nq: string, words: string[], sabs: string[] | null, top: TopRanks): number | null {
  const scan = words[0]!;
  const others = words.slice(1).map((w) => [w, ` ${w}`] as const);
  let count = 0;
  const each = (nrm: string, sab: string, ord: string): void => {
    if (sabs !== null && !sabs.includes(sab)) return;
    if (others.length && !others.every(([w, spaced]) => wordStartsWith(nrm, w, spaced))) return;
    count++;
    top.add(nrm, ord, umlsTier(nrm, nq, words));
  };
  // Fields are cut from each line as they are needed, in `UMLS_WORD_FIELDS` order (word, prev, nrm,
  // sab, ord): most rows are counted, not shown, and splitting every line cost 0.57 us a row more.
  const complete = file.lines(scan, `${scan}\u007f`, MAX_RANGE_BLOCKS, (line) => {
    if (line.includes('\\')) {
      const f = rangeFields(line);
      if (firstOfAtom(f[W.prev]!, scan)) each(f[W.nrm]!, f[W.sab]!, f[W.ord]!);
      return;
    }
    const t1 = line.indexOf('\t');
    const t2 = line.indexOf('\t', t1 + 1);
    if (!firstOfAtom(line.slice(t1 + 1, t2), scan)) return;
    const t3 = line.indexOf('\t', t2 + 1);
    const t4 = line.indexOf('\t', t3 + 1);
    each(line.slice(t2 + 1, t3), line.slice(t3 + 1, t4), line.slice(t4 + 1));
  });
  return complete ? count : null;
}

/**
 * The count and first atoms of a one-word search with no source filter, from the words sidecar's
 * block summaries (`word_summary.ts`). A block wholly inside the prefix's range is counted from
 * its summary, unread; the one or two at the range's edges are read. For ranking, each block's
 * summary bounds the best atom it can add: a head row (the string's first word) can be tier 1 or
 * 2, any other row tier 3 (its word is the query word itself) or 4; every atom of the range has a
 * row within its own bound (its head row when its string starts with the prefix, its row of the
 * query word when it holds it whole). Blocks are read best bound first, until the worst of the
 * first `limit` atoms ranks before the next block's bound.
 */
function rankOneWord(file: RangeFile, nq: string, scan: string, top: TopRanks): number | null {
  const to = `${scan}\u007f`;
  const { first, end } = file.span(scan, to);
  // Blocks that may hold the query word itself (tiers 1 and 3).
  const exactEnd = file.span(scan, `${scan}\u0000`).end;
  let count = 0;
  let reads = 0;
  const read = (b: number, counting: boolean) => {
    reads++;
    file.blockLines(b, scan, to, (line) => {
      // A row of a prefix's range holds letters, digits and spaces only (nothing escaped): its
      // fields (word, prev, nrm, sab, ord) are cut as needed, the rank first, since most rows of a
      // block cannot enter the first `limit`: at best tier 1 when its word is the query word
      // itself (the whole string equal to the query), else tier 2.
      const t1 = line.indexOf('\t');
      const t2 = line.indexOf('\t', t1 + 1);
      if (counting && firstOfAtom(line.slice(t1 + 1, t2), scan)) count++;
      const ord = line.slice(line.lastIndexOf('\t') + 1);
      if (top.excludes({ tier: t1 === scan.length ? 1 : 2, rank: Number(ord) })) return;
      const nrm = line.slice(t2 + 1, line.indexOf('\t', t2 + 1));
      top.add(nrm, ord, umlsTier(nrm, nq, [scan]));
    });
  };
  // Each block's bound as one number, tier * 2^32 + rank (exact in a double); Infinity once read.
  const TIER = 2 ** 32;
  const sums = new WordSummaries(file.summaries);
  const bounds = new Float64Array(Math.max(0, end - first)).fill(Infinity);
  for (let b = first; b < end; b++) {
    // Only the first and last blocks can hold rows outside the range (`RangeFile.within`).
    if ((b === first || b === end - 1) && !file.within(b, scan, to)) {
      read(b, true);
      continue;
    }
    count += sums.counted(b, scan.length);
    const exact = b < exactEnd;
    const head = sums.minHeadOrd(b);
    bounds[b - first] = Math.min(head === Infinity ? Infinity : (exact ? 1 : 2) * TIER + head, (exact ? 3 : 4) * TIER + sums.minOrd(b));
  }
  // Blocks best bound first (a pick scans the bounds: a page needs a few reads, a sort would order them all).
  while (top.limit > 0) {
    let at = -1;
    let best = Infinity;
    for (let i = 0; i < bounds.length; i++) {
      if (bounds[i]! < best) {
        best = bounds[i]!;
        at = i;
      }
    }
    if (at < 0 || top.excludes({ tier: Math.floor(best / TIER), rank: best % TIER })) break;
    bounds[at] = Infinity;
    if (reads >= MAX_RANGE_BLOCKS) return null;
    read(first + at, false);
  }
  return count;
}

/** Rows asked beyond `limit` for the atoms a code search found (they are dropped from the word rows). */
const CODE_ROOM = 32;

/** At most this many query words are matched against UMLS strings (the rest would only narrow further). */
const MAX_WORDS = 8;

/**
 * UMLS atoms matching `q` from the release's word table, ranked in SQL with the tiers of the
 * in-memory index, the first `limit` and the count of all. The longest query word (the most
 * selective prefix) is the range scan; every other word filters the rows it found.
 */
async function searchUmls(snapshot: SnapshotReader, version: string, q: string, sabs: string[] | null, limit: number): Promise<{ hits: ConceptHit[]; total: number }> {
  const nq = umlsNorm(q);
  const words = umlsQueryWords(nq);
  const scan = words[0] ?? '';
  // Source abbreviations are validated (capitals, digits, _ . -) before they get here.
  const sabFilter = sabs ? ` AND sab IN (${sabs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ')})` : '';
  type Row = UmlsRow;
  const entry = (r: Row) => umlsEntry(r, version);
  // The version's own word table where the snapshot names it (a query through the view over
  // versions pays for the union); its rows carry the version, so the filter stays.
  const own = snapshot.versionTable?.('umls_concepts', version, 'word');
  const wordTable = own ?? 'umls_concepts__word';
  // The stored normalised string where the version has it (computed for older version files).
  const stored = await storesSearchColumns(snapshot, version, wordTable);
  const nrm = stored ? 'nrm' : UMLS_NORM_SQL('str');
  // The code as typed: an equality scan (a few atoms), ranked here; asked beside the word queries.
  const codeRows = snapshot.all<Row>(`SELECT aui, cui, sab, tty, code, str, ${nrm} AS nrm FROM ${wordTable} WHERE version = $1 AND word = $2${sabFilter}`, [version, `#${codeKey(q)}`]);
  if (!scan) {
    const byCode = await codeRows;
    return { total: byCode.length, hits: byCode.map((r): ConceptHit => ({ tier: 0, entry: entry(r) })).sort(byRank).slice(0, limit) };
  }
  // The longest word as a prefix range (zone maps narrow it to a few row groups; one query per
  // part, plain filters: an OR of code and range defeated the zone maps, and a NOT IN over an
  // empty code list with a window count crashed DuckDB 1.5 now and then under parallel load).
  // Query word k as a parameter: the longest ($2, the range's start) and then each other.
  const w = (k: number) => (k === 0 ? '$2' : `$${3 + k}`);
  const nqAt = `$${3 + words.length}`;
  // An atom with two words in the range (`diabetes diabetic` for `diab`) has a row for each: the
  // row of its first such word is the one whose previous word (in sorted order) is outside the
  // range. Older version files keep one with DISTINCT.
  const firstOfAtom = stored ? ' AND (prev IS NULL OR prev < $2)' : '';
  const distinct = stored ? '' : 'DISTINCT ';
  const filter =
    `FROM (SELECT aui, cui, sab, tty, code, str, ${nrm} AS nrm FROM ${wordTable} WHERE version = $1 AND word >= $2 AND word < $3${firstOfAtom}${sabFilter}) ` +
    // The range's word is a word of the string starting with the longest query word; the others are checked.
    `WHERE ${['true', ...words.slice(1).map((_, k) => `contains(' ' || nrm, ' ' || ${w(k + 1)})`)].join(' AND ')}`;
  const everyWhole = words.map((_, k) => `contains(' ' || nrm || ' ', ' ' || ${w(k)} || ' ')`).join(' AND ');
  const params = [version, scan, `${scan}\u007f`, ...words.slice(1)];
  // The three queries at once, each on its own connection. The rows asked are `limit` plus room
  // for the atoms the code found (shown once, at tier 0, and dropped from these); asked again
  // in the rare case the code found more atoms than that room.
  const ranked = (extra: number) =>
    snapshot.all<Row & { tier: number }>(
      `SELECT ${distinct}aui, cui, sab, tty, code, str, nrm, CASE WHEN nrm = ${nqAt} THEN 1 WHEN starts_with(nrm, ${nqAt}) THEN 2 WHEN ${everyWhole} THEN 3 ELSE 4 END AS tier ${filter} ` +
        `ORDER BY tier, length(str), code, str, aui LIMIT ${Math.trunc(limit) + extra}`,
      [...params, nq],
    );
  const [byCode, [count], first] = await Promise.all([codeRows, snapshot.all<{ n: bigint | number }>(`SELECT count(${distinct}aui) AS n ${filter}`, params), ranked(CODE_ROOM)]);
  const rows = byCode.length > CODE_ROOM ? await ranked(byCode.length) : first;
  const codeAuis = new Set(byCode.map((r) => r.aui));
  const hits: ConceptHit[] = byCode.map((r) => ({ tier: 0, entry: entry(r) }));
  // An atom the code found is counted and shown once, at tier 0.
  const total = byCode.length + Number(count?.n ?? 0) - byCode.filter((r) => everyWordPrefix(words, r.nrm)).length;
  for (const r of rows) if (!codeAuis.has(r.aui)) hits.push({ tier: Number(r.tier), entry: entry(r) });
  return { total, hits: hits.sort(byRank).slice(0, limit) };
}

export interface ConceptMatches {
  /** The first `limit` matches, best first. */
  hits: ConceptEntry[];
  /** Every match. */
  total: number;
  /** dataset -> version of every source searched. */
  versions: Record<string, string>;
}

/**
 * Terms matching `q`, best first, across the loaded UMLS release and the public vocabularies: the
 * code as typed (`E11.9`, `E119`, `99213`, an RxCUI), then a term equal to the query, then one
 * starting with it, then terms holding every query word whole, then as prefixes; within a tier
 * shorter terms first, UMLS atoms before other sources, then code.
 */
export async function searchConcepts(snapshot: SnapshotReader, q: string, sabs: string[] | null, limit: number, licensed = false): Promise<ConceptMatches> {
  const ix = await conceptIndex(snapshot, licensed);
  const own = searchIndex(ix, q, sabs);
  const umlsVersion = latest(snapshot, 'umls_concepts');
  let umls: { hits: ConceptHit[]; total: number } | null = { hits: [], total: 0 };
  if (umlsVersion) {
    // The version's range sidecar where it has one; DuckDB for a version without one, a prefix
    // too wide for it, or a block that cannot be read (the file damaged after it was written).
    const ranges = await umlsSidecars(snapshot, umlsVersion);
    let reason: SidecarFallback = ranges ? 'wide' : 'missing';
    try {
      umls = ranges && searchUmlsRanges(ranges, umlsVersion, q, sabs, limit);
    } catch {
      umls = null;
      reason = 'damaged';
    }
    if (!umls) {
      sidecarFallback(snapshot, 'umls_concepts', 'words', reason);
      umls = await searchUmls(snapshot, umlsVersion, q, sabs, limit);
    }
  }
  return {
    hits: [...umls.hits, ...own].sort(byRank).slice(0, limit).map((h) => h.entry),
    total: umls.total + own.length,
    versions: { ...ix.versions, ...(umlsVersion ? { umls_concepts: umlsVersion } : {}) },
  };
}
