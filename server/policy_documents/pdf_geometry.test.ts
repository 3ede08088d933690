import { describe, expect, it } from 'vitest';
import { extractPdf } from './extract.js';
import { headingsPdf, TWO_COLUMNS } from '../../testing/pdfs.js';

/** A generated policy PDF with every page's MediaBox replaced (pdfjs rebuilds the cross-reference table the edit breaks). */
async function withMediaBox(box: string): Promise<Buffer> {
  const pdf = (await headingsPdf()).toString('latin1');
  expect(pdf).toMatch(/\/MediaBox \[0 0 612 792\]/);
  return Buffer.from(pdf.replace(/\/MediaBox \[0 0 612 792\]/g, `/MediaBox [0 0 ${box}]`), 'latin1');
}

describe('page geometry a crafted PDF declares', () => {
  // Each finishes at once now; before, 1e400 (Infinity) looped the column finder forever and 1e9
  // scanned 200 million positions: a test that never returns fails on the suite's time limit.
  for (const box of ['1e400 792', '1e9 792', '0 792']) {
    it(`reads the text of a page whose MediaBox is [0 0 ${box}] by its content, columns included`, async () => {
      const text = await extractPdf(await withMediaBox(box), { maxPages: 20 });
      expect(text.page_count).toBe(2);
      const all = text.lines.map((l) => l.text).join('\n');
      expect(all).toContain('Gastric Stimulation Policy');
      // The two-column page still reads left column first, then right.
      expect(all.indexOf(TWO_COLUMNS.left[5]!)).toBeLessThan(all.indexOf(TWO_COLUMNS.right[0]!));
      expect(Number.isFinite(text.width)).toBe(true);
    }, 60_000);
  }
});
