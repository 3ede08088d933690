import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One Medicare Part B drug payment limit per HCPCS billing unit (ASP + 6%). */
export const AspPricingRowSchema = z.object({
  hcpcs_code: z.string(),
  short_descriptor: z.string(),
  hcpcs_dosage: z.string().describe('The billing unit the limit is per, spaces normalised (`10 MG`; `1 million PFU` has an NBSP in the Jan 2025 file).'),
  payment_limit: z.number().nullable().describe('Dollars per billing unit, 3 decimals (`146.312`); null where CMS prints `N/A` (Jan 2025: `A9606` radium-223, whose AWP/WAC sits in a two-line quoted Notes cell instead).'),
  coinsurance_pct: z.number().nullable().describe('Beneficiary coinsurance percent (`20.000`; lower for inflation-adjusted drugs, 0 for vaccines).'),
  vaccine_awp_pct: z.number().nullable(),
  vaccine_limit: z.number().nullable(),
  blood_awp_pct: z.number().nullable(),
  blood_limit: z.number().nullable(),
  clotting_factor: z.boolean().describe('True when the Clotting Factor column is `1` (furnishing fee applies).'),
  notes: z.string().nullable(),
});
/** One Medicare Part B drug payment limit per HCPCS billing unit (ASP + 6%). */
export type AspPricingRow = z.infer<typeof AspPricingRowSchema>;

const WANT = ['HCPCS CODE', 'SHORT DESCRIPTION', 'HCPCS CODE DOSAGE', 'PAYMENT LIMIT'];

/** `HCPCS Code,Short Description,HCPCS Code Dosage,Payment Limit,Co-insurance Percentage,…,Notes,`. */
export const isAspPricingHeader = (f: string[]): boolean => WANT.every((w, i) => normHeader(f[i] ?? '') === w);

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * The quarter a CMS ASP file applies to, from `Effective January 1, 2025 through March 31, 2025`
 * (pricing file and NDC-HCPCS crosswalk both print it), as `2025Q1`; the file name
 * (`Jan 2025 ASP Pricing File`) is the fallback.
 */
export function aspVersionOf(sample: FileSample): VersionInfo | undefined {
  for (const l of sample.lines.slice(0, 15)) {
    const m = /Effective\s+([A-Za-z]+)\s+(\d{1,2}),\s*(20\d{2})/i.exec(l);
    if (m) {
      const month = MONTHS.indexOf(m[1]!.toLowerCase()) + 1;
      if (month > 0) return quarterOf(Number(m[3]), month);
    }
  }
  const n = /\b(jan|apr|jul|oct)[a-z]*[\s_-]*(20\d{2})\b/i.exec(sample.name);
  if (n) return quarterOf(Number(n[2]), MONTHS.findIndex((x) => x.startsWith(n[1]!.toLowerCase())) + 1);
  return undefined;
}

function quarterOf(year: number, month: number): VersionInfo {
  const q = Math.floor((month - 1) / 3) + 1;
  return { label: `${year}Q${q}`, effective_date: `${year}-${String((q - 1) * 3 + 1).padStart(2, '0')}-01` };
}

/**
 * CMS ASP pricing file, section 508 CSV (`section 508 version of Jan 2025 ASP Pricing File updated
 * 030725.csv`): CP1252 (an 0xA0 byte inside `1 million PFU`), 8 preamble lines with the effective
 * window, a trailing empty 12th column, limits with 3 decimals. Kept apart from the NDC crosswalk
 * (`asp_crosswalk`) because the two have different keys and CMS ships them as separate files.
 */
export const aspPricing = defineDataset({
  id: 'asp_pricing',
  title: 'Medicare Part B drug payment limits (ASP pricing file)',
  publisher: 'CMS Medicare Part B Drug Average Sales Price',
  formats: ['section 508 version of <Mon> <YYYY> ASP Pricing File.csv (8 preamble lines, 12 columns, CP1252)'],
  row: AspPricingRowSchema,
  key: ['hcpcs_code'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isAspPricingHeader(l.split(','))),
  version(samples): VersionInfo | undefined {
    return samples.map(aspVersionOf).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<AspPricingRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, isAspPricingHeader, 'HCPCS Code, Short Description, HCPCS Code Dosage, Payment Limit, …', 40);
    const h = header.fields.map(normHeader);
    const at = (name: string): number => h.indexOf(name);
    const idx = {
      coins: at('CO-INSURANCE PERCENTAGE'),
      vAwp: at('VACCINE AWP%'),
      vLim: at('VACCINE LIMIT'),
      bAwp: at('BLOOD AWP%'),
      bLim: at('BLOOD LIMIT'),
      clot: at('CLOTTING FACTOR'),
      notes: at('NOTES'),
    };
    const cell = (fields: string[], i: number): string | undefined => (i >= 0 ? fields[i] : undefined);
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const row: AspPricingRow = {
        hcpcs_code: r.text('HCPCS Code', fields[0], { required: true, pattern: /^[A-Z0-9]{5}$/ }),
        short_descriptor: clean(fields[1]),
        hcpcs_dosage: clean(fields[2]).replace(/\s+/g, ' '),
        payment_limit: r.number('Payment Limit', fields[3], { min: 0 }),
        coinsurance_pct: r.number('Co-insurance Percentage', cell(fields, idx.coins), { min: 0, max: 100 }),
        vaccine_awp_pct: r.number('Vaccine AWP%', cell(fields, idx.vAwp), { min: 0 }),
        vaccine_limit: r.number('Vaccine Limit', cell(fields, idx.vLim), { min: 0 }),
        blood_awp_pct: r.number('Blood AWP%', cell(fields, idx.bAwp), { min: 0 }),
        blood_limit: r.number('Blood limit', cell(fields, idx.bLim), { min: 0 }),
        clotting_factor: r.integer('Clotting Factor', cell(fields, idx.clot), { min: 0, max: 1 }) === 1,
        notes: clean(cell(fields, idx.notes)) || null,
      };
      yield r.ok ? { line, row } : { line, issues: r.issues };
    }
  },
});
