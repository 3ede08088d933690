/**
 * A one-page policy PDF built in code (Helvetica, no embedded font) for the routes' documented
 * examples, which the contract test sends: a title, a policy number, an effective date, two
 * headings and a sentence naming a CPT code. Real payer PDFs are tested in the conformance suite.
 */
export function examplePolicyPdf(): string {
  const lines: [number, number, number, string][] = [
    [20, 72, 720, 'Example Medical Policy'],
    [10, 72, 696, 'Policy Number: EX-2026-001'],
    [10, 72, 682, 'Effective Date: 01/01/2026'],
    [14, 72, 650, 'Coverage Rationale'],
    [10, 72, 630, 'Laparoscopic sleeve gastrectomy (CPT code 43775) is covered when the BMI is 40 or more.'],
    [10, 72, 616, 'Prior authorization is required before the procedure is scheduled.'],
    [14, 72, 584, 'Applicable Codes'],
    [10, 72, 564, '43775  Laparoscopy, surgical, gastric restrictive procedure; longitudinal gastrectomy'],
  ];
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = lines.map(([size, x, y, t]) => `BT /F1 ${size} Tf ${x} ${y} Td (${esc(t)}) Tj ET`).join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return out;
}
