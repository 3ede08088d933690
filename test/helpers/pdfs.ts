import { existsSync } from 'node:fs';
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
