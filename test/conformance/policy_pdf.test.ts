import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

const REL = 'payer-policy-pdf/bariatric-surgery.pdf';
const present = requireShared(REL);

/** The codes the PDF's own Subject lists ("Applicable Procedure Codes: ..."). */
const SUBJECT_CODES =
  '0813T 43290 43291 43644 43645 43647 43648 43659 43770 43771 43772 43773 43774 43775 43843 43845 43846 43847 43848 43860 43865 43881 43882 43886 43887 43888 43999 64590 64595 64999'.split(' ');

interface Chunk {
  chunk_id: string;
  page_start: number;
  page_end: number;
  section_path: string[];
  text: string;
}

describe.skipIf(!present)('customer policy parsing on a real 53-page payer policy (UnitedHealthcare, Bariatric Surgery)', () => {
  let t: TestServer;
  let parsed: { document_id: string; chunks: Chunk[]; codes: { code: string; system: string; pages: number[] }[] } & Record<string, unknown>;
  beforeAll(async () => {
    t = await startTestServer();
    const pdf = await readFile(join(sharedDataDir(), REL));
    const r = await t.request('/v1/policy/parse', { method: 'POST', body: pdf, headers: { 'Content-Type': 'application/pdf' } });
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    parsed = r.body;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('reads the title, policy number, effective date and payer page 1 prints', () => {
    expect(parsed).toMatchObject({
      title: 'Bariatric Surgery',
      policy_number: '2025T0362PP',
      effective_date: '2025-05-01',
      payer: { slug: 'uhc', name: 'UnitedHealthcare' },
      page_count: 53,
      structure_source: 'outline',
    });
  });

  it('has the top headings on the pages its table of contents states', async () => {
    const r = await t.request('/v1/policy/structure', { method: 'POST', body: { document_id: parsed.document_id } });
    expect(r.status).toBe(200);
    // Page 1's table of contents, as printed (the outline adds "(FDA)" to one title).
    expect(r.body.tree.map((n: { title: string; page: number }) => [n.title, n.page])).toEqual([
      ['Application', 1],
      ['Coverage Rationale', 1],
      ['Medical Records Documentation Used for Reviews', 3],
      ['Definitions', 3],
      ['Applicable Codes', 4],
      ['Description of Services', 5],
      ['Benefit Considerations', 8],
      ['Clinical Evidence', 8],
      ['U.S. Food and Drug Administration (FDA)', 41],
      ['References', 42],
      ['Policy History/Revision Information', 52],
      ['Instructions for Use', 52],
    ]);
    const clinical = r.body.tree.find((n: { title: string }) => n.title === 'Clinical Evidence');
    expect(clinical.children.map((n: { title: string; page: number }) => [n.title, n.page])).toContainEqual(['Sleeve Gastrectomy (Vertical Gastrectomy)', 13]);
  });

  it('finds the CPT table codes on the pages they are printed on', () => {
    const codes = new Map(parsed.codes.map((c) => [c.code, c]));
    for (const c of SUBJECT_CODES) expect(codes.has(c), c).toBe(true);
    expect(codes.get('0813T')).toMatchObject({ system: 'CPT', pages: [4] });
    expect(codes.get('43290')!.pages).toEqual([4]);
    expect(codes.get('64590')!.pages).toEqual([5]);
    // "Utilize CPT code 43775 ..." on page 4, and its table row on page 5.
    expect(codes.get('43775')!.pages).toEqual([4, 5]);
    const row = parsed.chunks.find((c) => c.text.includes('43775  Laparoscopy, surgical, gastric restrictive procedure; longitudinal gastrectomy'));
    expect(row).toMatchObject({ page_end: 5, section_path: ['Applicable Codes'] });
  });

  it('cuts chunks inside sections, without the running header and footer', () => {
    for (const c of parsed.chunks) {
      expect(c.text).not.toMatch(/Proprietary Information of UnitedHealthcare|Page \d+ of 53/);
      expect(c.page_end).toBeGreaterThanOrEqual(c.page_start);
    }
    const sleeve = parsed.chunks.filter((c) => c.section_path.join(' / ') === 'Clinical Evidence / Sleeve Gastrectomy (Vertical Gastrectomy)');
    expect(sleeve.length).toBeGreaterThan(0);
    expect(Math.min(...sleeve.map((c) => c.page_start))).toBe(13);
  });

  it.each([
    ['what does the policy require for 43775?', [4, 5]],
    ['criteria for bariatric surgery in adolescents age 12-17', [2]],
    ['Los Angeles classification of oesophagitis grades', [3, 4]],
  ])('retrieves %s from the right page', async (query, pages) => {
    const r = await t.request('/v1/policy/retrieve', { method: 'POST', body: { query, top_k: 5, document_id: parsed.document_id } });
    expect(r.status).toBe(200);
    const hit = r.body.results.find((h: Chunk) => pages.some((p) => h.page_start <= p && p <= h.page_end));
    expect(hit, JSON.stringify(r.body.results.map((h: Chunk) => [h.page_start, h.section_path]))).toBeTruthy();
  });
});
