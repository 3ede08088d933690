import type { Line, OutlineEntry, PdfText } from './extract.js';
import { isoOfYmd } from '../../datasets/_shared/dates.js';

/**
 * A policy PDF's text as a heading tree and cited chunks. Pure: positioned lines in, structure
 * out. Headings come from the first source that has them, in this order: the PDF outline
 * (bookmarks point at the page and height of each heading), a printed table of contents
 * ("Title ....... 12" lines on the first pages, located on the page each names), else lines set
 * larger than the body text. A chunk holds whole paragraphs of one section (never two), cut at
 * about CHUNK_TARGET characters; a paragraph longer than CHUNK_MAX is cut at sentence ends.
 */

export type StructureSource = 'outline' | 'toc' | 'headings' | 'none';

export interface Heading {
  title: string;
  level: number;
  page: number;
  /** Baseline height of the heading's position (PDF units); lines at or below it on its page belong to it. */
  top: number;
  /** Whether the heading's own line was found in the text (its line is then not repeated in the body). */
  located: boolean;
}

export interface Chunk {
  ordinal: number;
  page_start: number;
  page_end: number;
  section_path: string[];
  /** Index into `headings` of the section, -1 before the first heading. */
  heading: number;
  text: string;
  codes: CodeMention[];
}

export type CodeSystem = 'CPT' | 'HCPCS' | 'ICD10CM';

export interface CodeMention {
  code: string;
  system: CodeSystem;
  page: number;
}

export interface PolicyMeta {
  title: string | null;
  policy_number: string | null;
  effective_date: string | null;
}

export interface StructuredPolicy {
  meta: PolicyMeta;
  source: StructureSource;
  headings: Heading[];
  chunks: Chunk[];
  page_count: number;
  /** Page 1's text (payer detection looks at it). */
  first_page_text: string;
}

export const CHUNK_TARGET = 900;
export const CHUNK_MAX = 1600;

export function structurePolicy(pdf: PdfText): StructuredPolicy {
  const firstPage = pdf.lines.filter((l) => l.page === 1);
  const first_page_text = firstPage.map((l) => l.text).join('\n');
  const lines = withoutRunningHeads(pdf.lines, pdf.page_count);
  const body = bodySize(lines);
  let source: StructureSource = 'none';
  let headings: Heading[] = [];
  if (pdf.outline.length) {
    headings = fromOutline(pdf.outline, lines);
    source = 'outline';
  }
  if (!headings.length) {
    headings = fromToc(lines);
    if (headings.length) source = 'toc';
  }
  if (!headings.length) {
    headings = fromSizes(lines, body);
    if (headings.length) source = 'headings';
  }
  const chunks = chunk(lines, headings, tocLines(lines));
  return { meta: metaOf(pdf, firstPage, body), source, headings, chunks, page_count: pdf.page_count, first_page_text };
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** Lines repeated at the same height on most pages (running headers, footers, page numbers). */
function withoutRunningHeads(lines: Line[], pages: number): Line[] {
  if (pages < 3) return lines;
  const key = (l: Line) => `${Math.round(l.y / 3)}|${norm(l.text).replace(/\d+/g, '#')}`;
  const seen = new Map<string, Set<number>>();
  for (const l of lines) {
    const k = key(l);
    let s = seen.get(k);
    if (!s) seen.set(k, (s = new Set()));
    s.add(l.page);
  }
  const min = Math.max(3, Math.ceil(pages * 0.5));
  return lines.filter((l) => seen.get(key(l))!.size < min);
}

/** The body text size: the size that sets the most characters. */
function bodySize(lines: Line[]): number {
  const chars = new Map<number, number>();
  for (const l of lines) chars.set(l.size, (chars.get(l.size) ?? 0) + l.text.length);
  let best = 0;
  let n = -1;
  for (const [s, c] of chars) if (c > n) [best, n] = [s, c];
  return best;
}


function fromOutline(outline: OutlineEntry[], lines: Line[]): Heading[] {
  const out: Heading[] = [];
  const walk = (es: OutlineEntry[], level: number) => {
    for (const e of es) {
      out.push(locate({ title: e.title, level, page: e.page, top: e.top ?? Infinity, located: false }, lines, e.top !== null));
      walk(e.children, level + 1);
    }
  };
  walk(outline, 1);
  return inReadingOrder(out);
}

/**
 * Finds the heading's printed line: on its page, at or just below `top` when the destination has
 * a height, else anywhere on the page; a match moves `top` to that line's baseline.
 */
function locate(h: Heading, lines: Line[], hasTop: boolean): Heading {
  const want = norm(h.title);
  if (want === '') return h;
  const onPage = lines.filter((l) => l.page === h.page && (!hasTop || (l.y <= h.top + 2 && l.y >= h.top - 80)));
  for (let i = 0; i < onPage.length; i++) {
    // A heading may wrap: compare with this line and the next joined.
    const one = norm(onPage[i]!.text);
    const two = i + 1 < onPage.length ? norm(`${onPage[i]!.text} ${onPage[i + 1]!.text}`) : one;
    if (one === want || (one.length >= 8 && want.startsWith(one) && two.startsWith(want.slice(0, Math.min(want.length, two.length))))) {
      return { ...h, top: onPage[i]!.y, located: true };
    }
  }
  return { ...h, top: hasTop ? h.top : Infinity };
}

const inReadingOrder = (hs: Heading[]) => hs.map((h, i) => ({ h, i })).sort((a, b) => a.h.page - b.h.page || b.h.top - a.h.top || a.i - b.i).map((x) => x.h);

const TOC_LINE = /^(.{3,}?)\s*(?:\.{3,}|…{2,}|\s{2,})\s*(\d{1,4})$/;

/** The lines of a printed table of contents (on the first five pages). */
function tocLines(lines: Line[]): Set<Line> {
  const out = new Set<Line>();
  const early = lines.filter((l) => l.page <= 5);
  for (let i = 0; i < early.length; i++) {
    if (TOC_LINE.test(early[i]!.text) && /\.{3,}|…/.test(early[i]!.text)) out.add(early[i]!);
  }
  // A TOC is several such lines; one dotted line is not one.
  return out.size >= 3 ? out : new Set();
}

function fromToc(lines: Line[]): Heading[] {
  const toc = [...tocLines(lines)];
  if (!toc.length) return [];
  const xs = [...new Set(toc.map((l) => Math.round(l.x)))].sort((a, b) => a - b);
  const pages = Math.max(...lines.map((l) => l.page));
  const out: Heading[] = [];
  for (const l of toc) {
    const m = TOC_LINE.exec(l.text)!;
    const page = Number(m[2]);
    if (page < 1 || page > pages) continue;
    const level = xs.indexOf(Math.round(l.x)) + 1;
    const title = m[1]!.replace(/[.\s…]+$/, '').trim();
    // The heading is printed on the page the TOC names (a few documents count the cover: try the next page too).
    let h = locate({ title, level, page, top: Infinity, located: false }, lines.filter((x) => !toc.includes(x)), false);
    if (!h.located && page < pages) {
      const next = locate({ title, level, page: page + 1, top: Infinity, located: false }, lines.filter((x) => !toc.includes(x)), false);
      if (next.located) h = next;
    }
    out.push(h);
  }
  return inReadingOrder(out);
}

function fromSizes(lines: Line[], body: number): Heading[] {
  const big = lines.filter((l) => l.size >= body * 1.15 && l.text.length <= 150 && /\p{L}/u.test(l.text));
  if (!big.length) return [];
  // The page title (the largest text on page 1) is the document's title, not a section.
  const titleSize = Math.max(...lines.filter((l) => l.page === 1).map((l) => l.size));
  const candidates = big.filter((l) => !(l.page === 1 && l.size === titleSize && titleSize > body * 1.3 && big.filter((b) => b.size === titleSize).length <= 2));
  const sizes = [...new Set(candidates.map((l) => l.size))].sort((a, b) => b - a);
  const out: Heading[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const l = candidates[i]!;
    const prev = out.at(-1);
    const prevLine = candidates[i - 1];
    // A heading wrapped onto a second line of the same size, just below.
    if (prev && prevLine && prevLine.page === l.page && prevLine.size === l.size && prevLine.y - l.y < l.size * 1.6) {
      prev.title = `${prev.title} ${l.text}`;
      continue;
    }
    out.push({ title: l.text, level: sizes.indexOf(l.size) + 1, page: l.page, top: l.y, located: true });
  }
  return out;
}

interface Para {
  page_start: number;
  page_end: number;
  text: string;
  /** [offset in text, page] where the text moves to a page. */
  marks: [number, number][];
}

/** Lines cut into paragraphs by section, then paragraphs packed into chunks. */
function chunk(lines: Line[], headings: Heading[], toc: Set<Line>): Chunk[] {
  // The heading lines themselves are the section's name, not its text.
  const headingLines = new Set<Line>();
  for (const h of headings) {
    if (!h.located) continue;
    const i = lines.findIndex((l) => l.page === h.page && Math.abs(l.y - h.top) < 0.5);
    if (i < 0) continue;
    headingLines.add(lines[i]!);
    const want = norm(h.title);
    let got = norm(lines[i]!.text);
    for (let j = i + 1; j < lines.length && got.length < want.length && want.startsWith(got); j++) {
      headingLines.add(lines[j]!);
      got = norm(`${got} ${lines[j]!.text}`);
    }
  }
  const sectionOf = (l: Line): number => {
    let s = -1;
    for (let i = 0; i < headings.length; i++) {
      const h = headings[i]!;
      if (h.page < l.page || (h.page === l.page && l.y <= h.top + 0.5)) s = i;
      else break;
    }
    return s;
  };
  const paths = headings.map((_, i) => pathOf(headings, i));
  const bySection = new Map<number, Para[]>();
  let current: { section: number; para: Para; last: Line } | null = null;
  const flush = () => {
    if (!current) return;
    let list = bySection.get(current.section);
    if (!list) bySection.set(current.section, (list = []));
    list.push(current.para);
    current = null;
  };
  for (const l of lines) {
    if (headingLines.has(l) || toc.has(l)) {
      flush();
      continue;
    }
    const section = sectionOf(l);
    // A list item, or a row of a code table (the code in its own cell, first on the line), starts a paragraph.
    const startsItem = /^([•▪◦o\-–*]|\d+[.)]|[a-z][.)])\s/.test(l.text) || (l.cells >= 2 && /^(\d{5}|\d{4}[FTU]|[A-V]\d{4}|[A-TV-Z]\d[0-9A-Z]\.[0-9A-Z]{1,4})\s/.test(l.text));
    if (current !== null) {
      const c: { section: number; para: Para; last: Line } = current;
      const gap = c.last.page === l.page ? c.last.y - l.y : l.size * 1.2;
      const newPara = c.section !== section || gap > Math.max(l.size, c.last.size) * 1.7 || gap < -1 || startsItem || Math.abs(l.size - c.last.size) > 1;
      if (!newPara) {
        const t = c.para.text;
        c.para.text = /\p{L}-$/u.test(t) && /^\p{Ll}/u.test(l.text) ? `${t}${l.text}` : `${t} ${l.text}`;
        if (l.page !== c.para.page_end) c.para.marks.push([t.length, l.page]);
        c.para.page_end = l.page;
        c.last = l;
        continue;
      }
      flush();
    }
    current = { section, para: { page_start: l.page, page_end: l.page, text: l.text, marks: [[0, l.page]] }, last: l };
  }
  flush();
  const out: Chunk[] = [];
  const sections = [...bySection.keys()].sort((a, b) => a - b);
  for (const s of sections) {
    let acc: Para | null = null;
    const emit = () => {
      if (!acc) return;
      const a: Para = acc;
      const c: Chunk = { ordinal: out.length + 1, page_start: a.page_start, page_end: a.page_end, section_path: s < 0 ? [] : paths[s]!, heading: s, text: a.text, codes: [] };
      codeCandidates.set(c, findCodes(a.text, a.marks));
      out.push(c);
      acc = null;
    };
    for (const p of bySection.get(s)!.flatMap(splitLong)) {
      if (acc !== null && (acc as Para).text.length + p.text.length + 2 > CHUNK_TARGET) emit();
      if (acc === null) acc = { ...p, marks: [...p.marks] };
      else {
        const a: Para = acc;
        const shift = a.text.length + 2;
        a.text = `${a.text}\n\n${p.text}`;
        a.marks.push(...p.marks.map(([o, pg]): [number, number] => [o + shift, pg]));
        a.page_end = p.page_end;
      }
    }
      emit();
  }
  confirmCodes(out);
  return out;
}

function pathOf(headings: Heading[], i: number): string[] {
  const path = [headings[i]!.title];
  let level = headings[i]!.level;
  for (let j = i - 1; j >= 0 && level > 1; j--) {
    if (headings[j]!.level < level) {
      path.unshift(headings[j]!.title);
      level = headings[j]!.level;
    }
  }
  return path;
}

/** A paragraph over CHUNK_MAX characters, cut after sentences (or spaces) into pieces under it. */
function splitLong(p: Para): Para[] {
  if (p.text.length <= CHUNK_MAX) return [p];
  const out: Para[] = [];
  let rest = p.text;
  let consumed = 0;
  while (rest.length > CHUNK_MAX) {
    const window = rest.slice(0, CHUNK_MAX);
    let cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('; '));
    if (cut < CHUNK_MAX / 2) cut = window.lastIndexOf(' ');
    if (cut <= 0) cut = CHUNK_MAX - 1;
    out.push(piece(p, consumed, rest.slice(0, cut + 1)));
    consumed += cut + 1;
    rest = rest.slice(cut + 1);
  }
  if (rest.trim()) out.push(piece(p, consumed, rest));
  return out;
}

/** The part of `p` from `offset` holding `text`, with its pages. */
function piece(p: Para, offset: number, text: string): Para {
  const end = offset + text.length;
  const pageAt = (o: number) => p.marks.filter(([m]) => m <= o).at(-1)?.[1] ?? p.page_start;
  const lead = text.length - text.trimStart().length;
  const start = offset + lead;
  const marks: [number, number][] = [[0, pageAt(start)], ...p.marks.filter(([m]) => m > start && m < end).map(([m, pg]): [number, number] => [m - start, pg])];
  return { page_start: pageAt(start), page_end: pageAt(Math.max(start, end - 1)), text: text.trim(), marks };
}

const CPT5 = /(?<![\w./:;(-])(\d{5})(?![\w/]|\.\d)/g;
const CPT_ALNUM = /(?<![\w./-])(\d{4}[FTU])(?!\w)/g;
const HCPCS = /(?<![\w./:;(-])([A-V]\d{4})(?!\w)/g;
const ICD10 = /(?<![\w./-])([A-TV-Z]\d[0-9A-Z]\.[0-9A-Z]{1,4})(?!\w)/g;
/** Words that make a five-digit number a procedure code within the same sentence. */
const CODE_CONTEXT = /\b(CPT|HCPCS|codes?|procedure)\b/i;

/** Code-looking tokens each counts as found only with evidence; five-digit numbers need context (see confirmCodes). */
interface Candidate {
  code: string;
  system: CodeSystem;
  page: number;
  at: number;
  strong: boolean;
}

const codeCandidates = new WeakMap<Chunk, Candidate[]>();

/** The code-looking tokens of a chunk's text, each with the page it is printed on and whether its sentence names it a code. */
function findCodes(text: string, marks: [number, number][]): Candidate[] {
  const pageAt = (o: number) => marks.filter(([m]) => m <= o).at(-1)?.[1] ?? marks[0]![1];
  const sentence = (i: number) => {
    const from = Math.max(text.lastIndexOf('. ', i), text.lastIndexOf('\n', i), text.lastIndexOf('; ', i)) + 1;
    const ends = ['. ', '\n', '; '].map((e) => text.indexOf(e, i)).filter((x) => x >= 0);
    return text.slice(from, ends.length ? Math.min(...ends) : text.length);
  };
  const list: Candidate[] = [];
  const add = (re: RegExp, system: CodeSystem, strong: (i: number, code: string) => boolean) => {
    for (const m of text.matchAll(re)) list.push({ code: m[1]!, system, page: pageAt(m.index!), at: m.index!, strong: strong(m.index!, m[1]!) });
  };
  // A five-digit number: named a code by its sentence, or first on its line of a code table.
  add(CPT5, 'CPT', (i, code) => CODE_CONTEXT.test(sentence(i)) || sentence(i).trimStart().startsWith(`${code} `));
  add(CPT_ALNUM, 'CPT', () => true);
  add(HCPCS, 'HCPCS', (i, code) => CODE_CONTEXT.test(sentence(i)) || sentence(i).trimStart().startsWith(`${code} `));
  add(ICD10, 'ICD10CM', () => true);
  return list.sort((a, b) => a.at - b.at);
}

/**
 * A five-digit number (or a letter and four digits) is a code when some sentence of the document names it as one (a code
 * table row, "CPT code 43775"): then every mention counts, while a bare number (a sample size, a
 * ZIP code) never named as a code does not.
 */
function confirmCodes(chunks: Chunk[]): void {
  const strong = new Set<string>();
  for (const c of chunks) for (const k of codeCandidates.get(c) ?? []) if (k.strong) strong.add(k.code);
  for (const c of chunks) {
    const seen = new Set<string>();
    const list = codeCandidates.get(c) ?? [];
    c.codes = [];
    for (const k of list) {
      if (!strong.has(k.code) || seen.has(k.code)) continue;
      seen.add(k.code);
      c.codes.push({ code: k.code, system: k.system, page: k.page });
    }
  }
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** An ISO date from "May 1, 2025", "05/01/2025", "05.01.2025" or "2025-05-01"; null when it is no real date. */
export function parseDate(s: string): string | null {
  let y: number;
  let m: number;
  let d: number;
  let r: RegExpExecArray | null;
  if ((r = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s))) [y, m, d] = [Number(r[1]), Number(r[2]), Number(r[3])];
  else if ((r = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/.exec(s))) [m, d, y] = [Number(r[1]), Number(r[2]), Number(r[3])];
  else if ((r = /^([A-Za-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})$/.exec(s))) {
    const i = MONTHS.findIndex((name) => name.startsWith(r![1]!.toLowerCase()) && r![1]!.length >= 3);
    if (i < 0) return null;
    [y, m, d] = [Number(r[3]), i + 1, Number(r[2])];
  } else return null;
  return isoOfYmd(y, m, d);
}

const DATE = String.raw`([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4}|\d{1,2}[/.]\d{1,2}[/.]\d{4}|\d{4}-\d{2}-\d{2})`;

function metaOf(pdf: PdfText, firstPage: Line[], body: number): PolicyMeta {
  const text = firstPage.map((l) => l.text).join('\n');
  // The title as printed: the largest text on page 1 (a wrapped title is joined), else the PDF's Title.
  let title: string | null = null;
  const max = Math.max(0, ...firstPage.map((l) => l.size));
  if (max > body * 1.3) {
    const top = firstPage.filter((l) => l.size === max);
    title = top.map((l) => l.text).join(' ').replace(/\s+/g, ' ').trim() || null;
  }
  title ??= pdf.info.title;
  const num = /Policy\s*(?:Number|No\.?|#|ID)\s*:?\s*([A-Z0-9][A-Z0-9.\-/]{2,30})/i.exec(text);
  const eff = new RegExp(`Effective(?:\\s+Date)?\\s*:?\\s*${DATE}`, 'i').exec(text) ?? new RegExp(`Effective(?:\\s+Date)?\\s*:?\\s*${DATE}`, 'i').exec(pdf.info.subject ?? '');
  return { title, policy_number: num ? num[1]! : null, effective_date: eff ? parseDate(eff[1]!.replace(/\s+/g, ' ')) : null };
}
