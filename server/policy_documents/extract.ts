import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PdfError } from './errors.js';
import { DEFAULT_PDF_LIMITS, PdfBudget, withBudget, type PdfLimits } from './pdf_limits.js';

/**
 * What a PDF says, as positioned lines: the text layer of every page (pdfjs-dist, the engine of
 * the client's pdf-parse, whose `getTextContent` keeps each run's font size and position, which
 * heading detection needs and pdf-parse's flattened text drops), the outline (bookmarks) with the
 * page and height each entry points at, and the document information dictionary.
 *
 * Pure over its input bytes: no file, no network (pdfjs is told not to fetch fonts or CMaps).
 * Bounded: decoded bytes, operators, text items and buffer memory stay within `PdfLimits`.
 */

/** One line of text as printed: its page, baseline height (PDF units, 0 at the bottom), left edge and font size. */
export interface Line {
  page: number;
  y: number;
  x: number;
  /** Right edge of the last run. */
  x1: number;
  size: number;
  text: string;
  /** Runs separated by gaps wider than one and a half font sizes: 2 or more on a table row. */
  cells: number;
}

export interface OutlineEntry {
  title: string;
  page: number;
  /** Height on the page the entry points at (the top of the heading), null when the destination has none. */
  top: number | null;
  children: OutlineEntry[];
}

export interface PdfText {
  page_count: number;
  /** Page width and height of page 1 (points). */
  width: number;
  info: { title: string | null; author: string | null; subject: string | null };
  outline: OutlineEntry[];
  lines: Line[];
}


/** The largest page side the PDF format allows (ISO 32000-1 annex C: 14,400 units, 200 inches). */
const MAX_COORD = 14_400;
const LETTER_WIDTH = 612;
/** The gutter scan looks at this many positions at most, whatever the page's width. */
const GUTTER_STEPS = 200;

/** A page's width from its view box, or null when it is not a real size (not finite, not positive, past the format's limit). */
function pageWidth(view: number[]): number | null {
  const w = (view[2] ?? NaN) - (view[0] ?? 0);
  return Number.isFinite(w) && w > 0 && w <= MAX_COORD ? w : null;
}

/**
 * The width the column finder works in: the page's, when real; else the extent of its own text
 * (so the work follows the page's content, never a declared size).
 */
function layoutWidth(declared: number | null, runs: Run[]): number {
  if (declared !== null) return declared;
  let right = 0;
  for (const r of runs) right = Math.max(right, r.x1);
  return right > 0 ? right : LETTER_WIDTH;
}

interface Run {
  x: number;
  x1: number;
  y: number;
  size: number;
  text: string;
}

export async function extractPdf(bytes: Uint8Array, o: { maxPages: number; limits?: PdfLimits }): Promise<PdfText> {
  if (!looksLikePdf(bytes)) throw new PdfError('invalid_pdf', 'the body is not a PDF (it does not start with %PDF-)');
  const budget = new PdfBudget(o.limits ?? DEFAULT_PDF_LIMITS);
  return withBudget(budget, async () => {
    try {
      const text = await extractBudgeted(bytes, o.maxPages, budget);
      budget.throwIfTripped();
      return text;
    } catch (e) {
      // A bound passed inside pdfjs may surface as pdfjs's own error (or none): the bound is the reason.
      throw budget.tripped ?? e;
    }
  });
}

async function extractBudgeted(bytes: Uint8Array, maxPages: number, budget: PdfBudget): Promise<PdfText> {
  const task = pdfjs.getDocument({
    // pdfjs transfers (detaches) the buffer it is given: hand it a copy.
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  let doc: pdfjs.PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => undefined);
    throw toPdfError(e);
  }
  try {
    budget.throwIfTripped();
    if (doc.numPages > maxPages) throw new PdfError('too_many_pages', `the PDF has ${doc.numPages} pages; at most ${maxPages} are accepted (RCM_POLICY_MAX_PAGES)`);
    budget.page();
    const first = await doc.getPage(1);
    const declaredWidth = pageWidth(first.view);
    const meta = await doc.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
    const lines: Line[] = [];
    for (let p = 1; p <= doc.numPages; p++) {
      budget.page();
      const page = p === 1 ? first : await doc.getPage(p);
      const content = await page.getTextContent();
      budget.throwIfTripped();
      budget.textItems(content.items.length);
      const runs: Run[] = [];
      for (const it of content.items) {
        if (!('str' in it)) continue;
        const [a, b, c, d, e, f] = it.transform as number[];
        const size = Math.hypot(c!, d!) || Math.hypot(a!, b!);
        // Whitespace runs (pdfjs adds one across a gap) say nothing the gap does not: the join re-adds spaces.
        if (it.str.trim() === '' || size <= 0) continue;
        // Every number the layout code uses is a real page coordinate (a crafted file can put 1e400 anywhere).
        const x1 = e! + it.width;
        if (![e, x1, f, size].every((v) => Number.isFinite(v) && Math.abs(v!) <= MAX_COORD)) continue;
        runs.push({ x: e!, x1, y: f!, size, text: it.str });
      }
      lines.push(...pageLines(p, runs, layoutWidth(declaredWidth, runs)));
      page.cleanup();
    }
    budget.page();
    const outline = await outlineOf(doc);
    budget.throwIfTripped();
    return {
      page_count: doc.numPages,
      width: declaredWidth ?? LETTER_WIDTH,
      info: { title: str(info.Title), author: str(info.Author), subject: str(info.Subject) },
      outline,
      lines,
    };
  } catch (e) {
    throw e instanceof PdfError ? e : toPdfError(e);
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

const looksLikePdf = (b: Uint8Array) => {
  // The header may follow a few bytes of junk (readers search the first 1024 bytes).
  const head = Buffer.from(b.subarray(0, 1024)).toString('latin1');
  return head.includes('%PDF-');
};

function toPdfError(e: unknown): PdfError {
  const name = (e as { name?: string })?.name;
  if (name === 'PasswordException') return new PdfError('encrypted_pdf', 'the PDF needs a password to open; send it without the user password (a PDF restricted only by an owner password is accepted)');
  const msg = e instanceof Error ? e.message : String(e);
  return new PdfError('invalid_pdf', `the PDF could not be read: ${msg.slice(0, 200)}`);
}

async function outlineOf(doc: pdfjs.PDFDocumentProxy): Promise<OutlineEntry[]> {
  const raw = await doc.getOutline().catch(() => null);
  if (!raw) return [];
  const walk = async (items: typeof raw): Promise<OutlineEntry[]> => {
    const out: OutlineEntry[] = [];
    for (const it of items) {
      let dest = it.dest;
      if (typeof dest === 'string') dest = await doc.getDestination(dest).catch(() => null);
      let page: number | null = null;
      let top: number | null = null;
      if (Array.isArray(dest) && dest[0] != null) {
        const ref = dest[0];
        page = typeof ref === 'number' ? ref + 1 : await doc.getPageIndex(ref).then((i) => i + 1).catch(() => null);
        // [ref, {name: 'XYZ'}, left, top, zoom] and [ref, {name: 'FitH'}, top]
        const kind = (dest[1] as { name?: string } | undefined)?.name;
        const t = kind === 'XYZ' ? dest[3] : kind === 'FitH' || kind === 'FitBH' ? dest[2] : null;
        top = typeof t === 'number' ? t : null;
      }
      const children = await walk(it.items ?? []);
      const title = (it.title ?? '').replace(/\s+/g, ' ').trim();
      if (page !== null && title !== '') out.push({ title, page, top, children });
      else out.push(...children);
    }
    return out;
  };
  return walk(raw);
}

/**
 * The lines of one page in reading order. Runs on one baseline join into a line (no space where
 * the gap is under a fifth of the font size: pdfjs splits words at kerning changes). A page set in
 * two columns (a vertical gutter near the middle that no run crosses, with the left column's text
 * reaching it) is read left column first, then right; full-width lines above or below the columns
 * stay in place.
 */
function pageLines(page: number, runs: Run[], width: number): Line[] {
  const gutter = findGutter(runs, width);
  const build = (rs: Run[]) => joinLines(page, rs);
  if (gutter === null) return build(runs);
  const crossing = runs.filter((r) => r.x < gutter && r.x1 > gutter);
  const inCols = runs.filter((r) => !(r.x < gutter && r.x1 > gutter));
  const colTop = inCols.reduce((m, r) => Math.max(m, r.y), -Infinity);
  const colBottom = inCols.reduce((m, r) => Math.min(m, r.y), Infinity);
  const above = crossing.filter((r) => r.y > colTop);
  const below = crossing.filter((r) => r.y < colBottom);
  return [...build(above), ...build(inCols.filter((r) => r.x1 <= gutter)), ...build(inCols.filter((r) => r.x >= gutter)), ...build(below)];
}

function findGutter(runs: Run[], width: number): number | null {
  if (runs.length < 10) return null;
  let best: { x: number; band: number } | null = null;
  // Every 2 points across the middle of a page, at most GUTTER_STEPS positions.
  const step = Math.max(2, (width * 0.4) / GUTTER_STEPS);
  for (let x = Math.round(width * 0.3); x <= width * 0.7; x += step) {
    let crossing = 0;
    for (const r of runs) if (r.x < x && r.x1 > x) crossing++;
    if (crossing > 0) continue;
    // The width of the empty band around x.
    // Loops, not Math.max(...): a page of 100,000 runs would overflow the argument stack.
    let leftEdge = 0;
    let rightEdge = width;
    for (const r of runs) {
      if (r.x1 <= x && r.x1 > leftEdge) leftEdge = r.x1;
      if (r.x >= x && r.x < rightEdge) rightEdge = r.x;
    }
    const band = rightEdge - leftEdge;
    if (!best || band > best.band) best = { x: (leftEdge + rightEdge) / 2, band };
  }
  if (!best) return null;
  const left = runs.filter((r) => r.x1 <= best.x);
  const right = runs.filter((r) => r.x >= best.x);
  const rows = (rs: Run[]) => new Set(rs.map((r) => Math.round(r.y))).size;
  if (rows(left) < 5 || rows(right) < 5) return null;
  // Running text in a column reaches the gutter on most lines; a table's short first column does not.
  const leftEnds = [...lineEnds(left)].sort((a, b) => a - b);
  const median = leftEnds[Math.floor(leftEnds.length / 2)]!;
  return best.x - median < width * 0.12 ? best.x : null;
}

/** The right edge of each baseline's last run. */
function lineEnds(rs: Run[]): number[] {
  const m = new Map<number, number>();
  for (const r of rs) {
    const k = Math.round(r.y);
    m.set(k, Math.max(m.get(k) ?? 0, r.x1));
  }
  return [...m.values()];
}

function joinLines(page: number, runs: Run[]): Line[] {
  const sorted = [...runs].sort((a, b) => b.y - a.y || a.x - b.x);
  const groups: Run[][] = [];
  for (const r of sorted) {
    const g = groups.at(-1);
    // Same line when the baselines are within a third of the font size (superscripts such as ® sit higher).
    if (g && Math.abs(g[0]!.y - r.y) < Math.max(g[0]!.size, r.size) * 0.35) g.push(r);
    else groups.push([r]);
  }
  const out: Line[] = [];
  for (const g of groups) {
    g.sort((a, b) => a.x - b.x);
    let text = '';
    let end = -Infinity;
    let size = 0;
    let cells = 0;
    for (const r of g) {
      const gap = r.x - end;
      if (r.text.trim() !== '' && (cells === 0 || gap > r.size * 1.5)) cells++;
      if (text !== '' && gap > r.size * 0.2 && !text.endsWith(' ') && !r.text.startsWith(' ')) text += gap > r.size * 2 ? '  ' : ' ';
      text += r.text;
      end = Math.max(end, r.x1);
      // The line's size is its main text's: the largest run that carries more than a symbol.
      if (r.text.trim().length > 1 || size === 0) size = Math.max(size, r.size);
    }
    const clean = text.replace(/[\u0000-\u001f\ue000-\uf8ff]/g, ' ').replace(/[ \t]{3,}/g, '  ').trim();
    if (clean === '') continue;
    out.push({ page, y: g[0]!.y, x: g[0]!.x, x1: end, size: Math.round(size * 10) / 10, text: clean, cells });
  }
  return out;
}
