import { existsSync } from 'node:fs';
import { constants as zlibConstants, deflateRawSync, deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';

/**
 * Policy PDFs generated for the tests (pdfkit): headings set larger than the body, a code table,
 * a page in two columns, a non-Latin term, an outline, a printed table of contents, and the
 * encrypted variants payer PDFs come in. Nothing here is a real payer's document.
 */

/** A font with Greek glyphs (the standard 14 PDF fonts have none): Debian's fonts-dejavu-core. */
const FONT_CANDIDATES = ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', '/usr/share/fonts/dejavu/DejaVuSans.ttf'];
export function unicodeFont(): string {
  const f = FONT_CANDIDATES.find((p) => existsSync(p));
  if (!f) throw new Error(`no DejaVuSans.ttf (${FONT_CANDIDATES.join(', ')}): apt-get install fonts-dejavu-core`);
  return f;
}

type Options = ConstructorParameters<typeof PDFDocument>[0];

function render(build: (doc: PDFKit.PDFDocument) => void, options: Options = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Fixed dates: the same content gives the same bytes (document ids derive from them).
    const doc = new PDFDocument({ size: 'LETTER', margin: 72, info: { CreationDate: new Date(Date.UTC(2026, 0, 1)), ModDate: new Date(Date.UTC(2026, 0, 1)) }, ...options });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    build(doc);
    doc.end();
  });
}

export const BODY = 11;

/** The two-column page's lines: each column is one paragraph. */
export const TWO_COLUMNS = {
  left: [
    'Left column study one enrolled patients',
    'with refractory vomiting and followed',
    'them for two years; symptom scores fell',
    'by half in the stimulated group, and',
    'three devices were removed for infection',
    'before the end of the second year.',
  ],
  right: [
    'Right column study two was a randomized',
    'trial of stimulation against sham in',
    'diabetic gastroparesis; vomiting days',
    'did not differ between the arms at six',
    'months, and the authors called for a',
    'larger trial with longer follow-up.',
  ],
};

/** Two pages: title, policy number and date; headings by size; a code table; Greek text; a two-column page. */
export function headingsPdf(options: Options = {}): Promise<Buffer> {
  return render((doc) => {
    doc.registerFont('uni', unicodeFont());
    doc.font('Helvetica').fontSize(22).text('Gastric Stimulation Policy', 72, 72);
    doc.fontSize(BODY).text('Policy Number: TP-0042', 72, 110);
    doc.text('Effective Date: March 1, 2026', 72, 126);
    doc.fontSize(16).text('Coverage Rationale', 72, 160);
    doc.fontSize(BODY).text('Gastric electrical stimulation is proven and medically necessary when all of the following criteria are met.', 72, 186, { width: 468 });
    doc.text('Symptoms persist after twelve months of drug therapy.', 72, 230, { width: 468 });
    doc.fontSize(13).text('Adults', 72, 262);
    doc.fontSize(BODY).text('An adult needs a gastric emptying study showing delayed emptying.', 72, 284, { width: 468 });
    doc.fontSize(16).text('Applicable Codes', 72, 320);
    doc.fontSize(BODY).text('CPT Code', 72, 346).text('Description', 160, 346);
    doc.text('43647', 72, 364).text('Laparoscopy, implantation of gastric neurostimulator electrodes', 160, 364);
    doc.text('43648', 72, 382).text('Laparoscopy, revision or removal of gastric neurostimulator electrodes', 160, 382);
    doc.text('E0765', 72, 400).text('FDA approved nerve stimulator for nausea and vomiting', 160, 400);
    doc.fontSize(16).text('Definitions', 72, 436);
    doc.font('uni').fontSize(BODY).text('Gastroparesis (from Greek γαστήρ, stomach): delayed emptying with diagnosis K31.84 documented.', 72, 462, { width: 468 });
    doc.addPage();
    doc.font('Helvetica').fontSize(16).text('Clinical Evidence', 72, 72);
    // Drawn line by line across both columns, as many producers write them: the text order of the
    // file interleaves the columns, and only positions tell them apart.
    doc.fontSize(BODY);
    TWO_COLUMNS.left.forEach((line, i) => {
      doc.text(line, 72, 100 + i * 14, { lineBreak: false });
      doc.text(TWO_COLUMNS.right[i]!, 315, 100 + i * 14, { lineBreak: false });
    });
  }, options);
}

/** The same kind of policy with an outline (bookmarks) and headings at body size: only the outline finds them. */
export function outlinePdf(): Promise<Buffer> {
  return render((doc) => {
    doc.font('Helvetica').fontSize(BODY);
    doc.text('Vagus Nerve Blocking Policy', 72, 72);
    const top = doc.outline.addItem('Coverage Rationale');
    doc.text('Coverage Rationale', 72, 100);
    doc.text('Vagus nerve blocking is unproven and not medically necessary for obesity.', 72, 120);
    doc.addPage();
    top.addItem('Exclusions');
    doc.text('Exclusions', 72, 72);
    doc.text('Code 64590 is excluded when billed for weight loss.', 72, 92);
    doc.outline.addItem('References');
    doc.text('References', 72, 140);
    doc.text('Smith J. A trial of vagal blocking. Obesity Journal. 2020.', 72, 160);
  });
}

/** A printed table of contents on page 1 naming pages 2 and 3; headings at body size, no outline. */
export function tocPdf(): Promise<Buffer> {
  return render((doc) => {
    doc.font('Helvetica').fontSize(BODY);
    doc.text('Intragastric Balloon Policy', 72, 72);
    doc.text('Table of Contents', 72, 100);
    doc.text('Coverage Rationale ........................................ 2', 72, 120);
    doc.text('Applicable Codes .......................................... 3', 72, 136);
    doc.text('References ................................................ 3', 72, 152);
    doc.addPage();
    doc.text('Coverage Rationale', 72, 72);
    doc.text('Intragastric balloons are unproven for the treatment of obesity.', 72, 92);
    doc.addPage();
    doc.text('Applicable Codes', 72, 72);
    doc.text('43290  Esophagogastroduodenoscopy with deployment of intragastric bariatric balloon', 72, 92);
    doc.text('References', 72, 140);
    doc.text('Jones K. Balloon therapy outcomes. Gut. 2019.', 72, 160);
  });
}

/** `pages` pages of one line each. */
export function pagesPdf(pages: number): Promise<Buffer> {
  return render((doc) => {
    doc.font('Helvetica').fontSize(BODY);
    for (let i = 1; i <= pages; i++) {
      if (i > 1) doc.addPage();
      doc.text(`Page body ${i}`, 72, 72);
    }
  });
}

/**
 * A PDF written byte by byte from its objects (`objects[i]` is object i + 1, its body without
 * `obj`/`endobj`), with a correct cross-reference table; object 1 is the catalog. For the crafted
 * files pdfkit will not write (decompression bombs, pages of millions of operators).
 */
export function rawPdf(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let at = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(at);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(obj);
    at += obj.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** A stream object: its dictionary entries (without /Length) and its bytes. */
export function pdfStream(dict: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}

/**
 * A zlib stream that inflates to `bytes` bytes of `fill`, built without holding them: one 1 MB
 * chunk deflated alone (no final block, a full flush: nothing refers back past it), repeated,
 * then a final empty block and the Adler-32 of the whole (closed form for a repeated byte).
 */
function zlibOfRepeated(bytes: number, fill: number): Buffer {
  const MB = 1024 * 1024;
  const whole = deflateRawSync(Buffer.alloc(MB, fill), { level: 9, finishFlush: zlibConstants.Z_FULL_FLUSH });
  const parts: Buffer[] = [Buffer.from([0x78, 0xda])];
  const full = Math.floor(bytes / MB);
  for (let i = 0; i < full; i++) parts.push(whole);
  if (bytes % MB) parts.push(deflateRawSync(Buffer.alloc(bytes % MB, fill), { level: 9, finishFlush: zlibConstants.Z_FULL_FLUSH }));
  parts.push(deflateRawSync(Buffer.alloc(0)));
  const n = BigInt(bytes);
  const c = BigInt(fill);
  const a = (1n + n * c) % 65521n;
  const b = (n + (c * n * (n + 1n)) / 2n) % 65521n;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  parts.push(adler);
  return Buffer.concat(parts);
}

/**
 * A stream's data that decodes to `bytes` bytes of `fill` through `/Filter [/FlateDecode
 * /FlateDecode]`: a few KB in the file (deflate alone stops near 1:1000; the second pass squeezes
 * the first's repetitive output).
 */
export function flateBomb(bytes: number, fill = 0x20): Buffer {
  return deflateSync(zlibOfRepeated(bytes, fill), { level: 9 });
}

/** One page whose text is `content` (a content stream, drawn with Helvetica as /F1), with `font` replacing the font dictionary. */
export function onePagePdf(content: Buffer, o: { contentFilter?: string; font?: (string | Buffer)[] } = {}): Buffer {
  const font = o.font ?? ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    pdfStream(o.contentFilter ? `/Filter ${o.contentFilter}` : '', content),
    ...font,
  ]);
}

const WORDS = (
  'coverage criteria member prior authorization medically necessary documentation physician surgery ' +
  'outpatient inpatient facility claim benefit plan review clinical evidence guideline treatment therapy ' +
  'diagnosis procedure device implant revision removal study trial outcome patient adult pediatric ' +
  'exclusion limitation reimbursement modifier billing code unit service provider network appeal ' +
  'denial request records imaging laboratory pathology radiology pharmacy dosage injection infusion ' +
  'symptom condition chronic acute severe moderate history failure conservative management follow-up'
).split(' ');

/**
 * A long policy in the shape payers write them: `pages` pages, a numbered section heading every
 * fifth page and three paragraphs of body text per page (words from a fixed list in a fixed
 * pseudo-random order, so the same call gives the same bytes). 300 pages make about 900 chunks.
 */
export function longPolicyPdf(pages: number): Promise<Buffer> {
  let seed = 42;
  const word = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return WORDS[seed % WORDS.length]!;
  };
  const sentence = () => {
    const n = 8 + (seed % 9);
    const w = Array.from({ length: n }, word);
    return `${w[0]![0]!.toUpperCase()}${w.join(' ').slice(1)} ${seed % 5 === 0 ? `code ${20000 + (seed % 70000)}` : 'as stated'}.`;
  };
  return render((doc) => {
    doc.font('Helvetica');
    for (let p = 1; p <= pages; p++) {
      if (p > 1) doc.addPage();
      let y = 72;
      if (p % 5 === 1) {
        doc.fontSize(16).text(`Section ${(p + 4) / 5}: Criteria ${word()}`, 72, y);
        y += 30;
      }
      doc.fontSize(BODY);
      for (let k = 0; k < 3; k++) {
        const para = Array.from({ length: 8 }, sentence).join(' ');
        doc.text(para, 72, y, { width: 468 });
        y = doc.y + 14;
      }
    }
  });
}

/** `/FlateDecode` of a string (content streams of the crafted PDFs). */
const flate = (s: string) => deflateSync(Buffer.from(s, 'latin1'), { level: 9 });

/** One page whose content stream decodes to `bytes` bytes (spaces): a decompression bomb of a few KB. */
export function flateBombPdf(bytes: number): Buffer {
  return onePagePdf(flateBomb(bytes), { contentFilter: '[/FlateDecode /FlateDecode]' });
}

/** One page that shows "a" `count` times, one text operator each, deflated (2 million: about 20 KB). */
export function textOperatorsPdf(count: number): Buffer {
  return onePagePdf(flate(`BT /F1 12 Tf 72 700 Td ${'(a) Tj '.repeat(count)}ET`), { contentFilter: '/FlateDecode' });
}

/**
 * One page that draws a form 1,000 times, which draws another 1,000 times, which shows 100 text
 * operators: 100 million operators from about 1 KB (a CPU bomb: over 120 s unbounded).
 */
export function formBombPdf(): Buffer {
  const form = (content: string, resources: string) => pdfStream(`/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources ${resources} /Filter /FlateDecode`, flate(content));
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /X1 5 0 R >> >> >>',
    pdfStream('/Filter /FlateDecode', flate('/X1 Do '.repeat(1000))),
    form('/X2 Do '.repeat(1000), '<< /XObject << /X2 6 0 R >> >>'),
    form(`BT /F1 12 Tf 72 700 Td ${'(a) Tj '.repeat(100)}ET`, '<< /Font << /F1 7 0 R >> >>'),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** One page of text in an embedded TrueType font whose font file decodes to `bytes` bytes (zeros): a font bomb of a few KB. */
export function fontBombPdf(bytes: number): Buffer {
  return onePagePdf(Buffer.from('BT /F1 12 Tf 72 700 Td (Hello) Tj ET'), {
    font: [
      '<< /Type /Font /Subtype /TrueType /BaseFont /Bomb /FirstChar 32 /LastChar 126 /FontDescriptor 6 0 R >>',
      '<< /Type /FontDescriptor /FontName /Bomb /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>',
      pdfStream(`/Filter [/FlateDecode /FlateDecode] /Length1 ${bytes}`, flateBomb(bytes, 0)),
    ],
  });
}

/** `pages` pages, each a content stream that decodes to `bytes` bytes (spaces). */
export function flateBombPagesPdf(pages: number, bytes: number): Buffer {
  const data = flateBomb(bytes);
  const first = 3;
  const kids = Array.from({ length: pages }, (_, i) => `${first + 2 * i} 0 R`).join(' ');
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    ...Array.from({ length: pages }, (_, i) => [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${first + 2 * i + 1} 0 R >>`,
      pdfStream('/Filter [/FlateDecode /FlateDecode]', data),
    ]).flat(),
  ]);
}
