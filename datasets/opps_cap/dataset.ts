import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/**
 * One OPPS payment cap of the PFS (Deficit Reduction Act of 2005, section 5102(b)): for an imaging
 * service, the PFS amount in a locality is capped at the OPPS amount, per setting.
 */
export const OppsCapRowSchema = z.object({
  hcpcs: z.string(),
  modifier: z.string().describe('blank for the global service, 26 or TC for a component'),
  procstat: z.enum(['A', 'C']).describe('PFS status: A priced (the cap applies), C carrier priced (the MAC prices it)'),
  carrier: z.string().describe('MAC number, 5 digits'),
  locality_number: z.string(),
  locality: z.string().describe('MAC + locality number (7 digits, the GPCI key)'),
  facility_price: z.number(),
  non_facility_price: z.number(),
});
export type OppsCapRow = z.infer<typeof OppsCapRowSchema>;

const NAMES = ['HCPCS', 'MOD', 'PROCSTAT', 'CARRIER', 'LOCALITY', 'FACILITY PRICE'];
const isCapHeader = (f: string[]) => NAMES.every((n, i) => normHeader(f[i] ?? '') === n) && /^NON-FACI?LI?TY PRICE$/.test(normHeader(f[6] ?? ''));

const QUARTER_OF_MONTH: Record<string, string> = { JAN: 'A', APR: 'B', JUL: 'C', OCT: 'D' };

/** `OPPSCAP_2026_Jan.csv` or an RVU zip name (`RVU25D`): release label `2026A`/`2025D`. */
export function capRelease(name: string): VersionInfo | undefined {
  const zip = /RVU(\d{2})([A-D])/i.exec(name);
  const named = /OPPSCAP_?(20\d{2})_?(JAN|APR|JUL|OCT)/i.exec(name);
  const year = zip ? 2000 + Number(zip[1]) : named ? Number(named[1]) : undefined;
  const letter = zip ? zip[2]!.toUpperCase() : named ? QUARTER_OF_MONTH[named[2]!.toUpperCase()] : undefined;
  if (!year || !letter) return undefined;
  const month = { A: '01', B: '04', C: '07', D: '10' }[letter];
  return { label: `${year}${letter}`, effective_date: `${year}-${month}-01` };
}

/**
 * CMS `OPPSCAP_<Mon>.csv`, shipped inside each PFS RVU zip (RVU25D: `OPPSCAP_Oct.csv`): a header
 * `HCPCS,MOD,PROCSTAT,CARRIER,LOCALITY,FACILITY PRICE,NON-FACILTY PRICE` (sic), carrier and locality
 * with leading zeros, a trailing empty `,,,,,,` row. The file names no year: the label comes from
 * a name like `OPPSCAP_2026_Jan.csv` or `RVU25D_OPPSCAP_Oct.csv`, or `--version 2025D`.
 */
export const oppsCap = defineDataset({
  id: 'opps_cap',
  title: 'OPPS payment caps of PFS imaging services by carrier and locality (DRA 2005)',
  publisher: 'CMS Medicare Physician Fee Schedule (RVU file companion)',
  formats: ['OPPSCAP_<Mon>.csv from the PFS RVU zip (HCPCS, MOD, PROCSTAT, CARRIER, LOCALITY, FACILITY PRICE, NON-FACILTY PRICE); no year in the file: pass --version <YYYY><A-D>'],
  row: OppsCapRowSchema,
  key: ['hcpcs', 'modifier', 'locality'],
  detect: (s) => s.lines.slice(0, 5).some((l) => isCapHeader(l.split(','))),
  version(samples: FileSample[]): VersionInfo | undefined {
    return samples.map((s) => capRelease(s.name)).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<OppsCapRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    await findHeader(records, file, isCapHeader, 'HCPCS, MOD, PROCSTAT, CARRIER, LOCALITY, FACILITY PRICE, NON-FACILTY PRICE', 5);
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const carrier = r.text('carrier', fields[3], { required: true, pattern: /^\d{5}$/ });
      const locality = r.text('locality_number', fields[4], { required: true, pattern: /^\d{2}$/ });
      const status = r.text('procstat', fields[2], { required: true, pattern: /^[AC]$/ });
      const row: OppsCapRow = {
        hcpcs: r.text('hcpcs', fields[0], { required: true, pattern: /^[A-Z0-9]{5}$/ }),
        modifier: r.text('modifier', fields[1], { pattern: /^(26|TC|53)$/ }),
        procstat: status as 'A' | 'C',
        carrier,
        locality_number: locality,
        locality: `${carrier}${locality}`,
        facility_price: r.number('facility_price', fields[5], { required: true, min: 0 }) ?? 0,
        non_facility_price: r.number('non_facility_price', fields[6], { required: true, min: 0 }) ?? 0,
      };
      yield r.ok ? { line, row } : { line, issues: r.issues };
    }
  },
});
