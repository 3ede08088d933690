import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One DMEPOS fee for one HCPCS + modifier pair in one state (the wide file stored long). */
export const DmeposRowSchema = z.object({
  hcpcs_code: z.string(),
  modifier: z.string().describe("first modifier, '' when none"),
  modifier2: z.string().describe("second modifier, '' when none"),
  state: z.string().describe('Two-letter state (plus DC, PR, VI).'),
  non_rural_rate: z.number().nullable().describe('null when the file prints 0.00'),
  rural_rate: z.number().nullable().describe('null when the file prints 0.00 (non-rural fee applies)'),
  ceiling: z.number().nullable().describe('Null when `0.00` (no ceiling: not subject to ceiling/floor).'),
  floor: z.number().nullable(),
  jurisdiction: z.string().describe('DME MAC jurisdiction letter: D (DME MAC), L (local carrier), J (joint).'),
  category: z.string().describe('Payment category (IN, PO, CR, OS, SU, …; see DMEREAD).'),
  short_descriptor: z.string(),
  year: z.int(),
});
/** One DMEPOS fee for one HCPCS + modifier pair in one state (the wide file stored long). */
export type DmeposRow = z.infer<typeof DmeposRowSchema>;

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const STATE_COL = /^([A-Z]{2}) \((NR|R)\)$/;

/** The DMEPOS header: `HCPCS,Mod,Mod2,JURIS,CATG,Ceiling,Floor,AL (NR),…`. */
export const isDmeposHeader = (f: string[]): boolean => {
  const h = f.map(normHeader);
  return h[0] === 'HCPCS' && h.includes('JURIS') && h.includes('CATG') && h.some((x) => STATE_COL.test(x));
};

/**
 * Version from the title line (`April 2025 Fee Schedule`) or the file name (`DMEPOS25_APR.csv`),
 * as `YYYY-MM`: CMS publishes quarterly plus off-cycle months, so the month is the honest unit.
 */
export function dmeposVersionOf(sample: FileSample): VersionInfo | undefined {
  let year: number | undefined;
  let month: number | undefined;
  for (const line of sample.lines.slice(0, 12)) {
    const m = /\b(January|February|March|April|May|June|July|August|September|October|November|December)\s+(20\d{2})\s+Fee Schedule/i.exec(line);
    if (m) {
      month = MONTHS.indexOf(m[1]!.slice(0, 3).toUpperCase()) + 1;
      year = Number(m[2]);
      break;
    }
  }
  if (year === undefined) {
    const n = /DMEPOS(\d{2})_?([A-Z]{3})/i.exec(sample.name);
    if (n && MONTHS.includes(n[2]!.toUpperCase())) {
      year = 2000 + Number(n[1]);
      month = MONTHS.indexOf(n[2]!.toUpperCase()) + 1;
    }
  }
  if (year === undefined || month === undefined) return undefined;
  const mm = String(month).padStart(2, '0');
  return { label: `${year}-${mm}`, effective_date: `${year}-${mm}-01` };
}

interface Layout {
  hcpcs: number;
  mod: number;
  mod2: number;
  juris: number;
  catg: number;
  ceiling: number;
  floor: number;
  description: number;
  states: { state: string; nr: number; r: number; nrName: string; rName: string }[];
}

function layoutOf(header: string[], file: SourceFile, line: number): Layout {
  const h = header.map(normHeader);
  const col = (name: string): number => {
    const i = h.indexOf(name);
    if (i < 0) throw new IngestError(`header has no ${name} column`, file.name, line, name);
    return i;
  };
  const pairs = new Map<string, { nr?: number; r?: number }>();
  h.forEach((x, i) => {
    const m = STATE_COL.exec(x);
    if (!m) return;
    const p = pairs.get(m[1]!) ?? {};
    if (m[2] === 'NR') p.nr = i;
    else p.r = i;
    pairs.set(m[1]!, p);
  });
  const states: Layout['states'] = [];
  for (const [state, p] of pairs) {
    if (p.nr === undefined || p.r === undefined) {
      throw new IngestError(`state ${state} lacks its ${p.nr === undefined ? '(NR)' : '(R)'} column`, file.name, line, state);
    }
    states.push({ state, nr: p.nr, r: p.r, nrName: `${state} (NR)`, rName: `${state} (R)` });
  }
  return {
    hcpcs: col('HCPCS'),
    mod: col('MOD'),
    mod2: col('MOD2'),
    juris: col('JURIS'),
    catg: col('CATG'),
    ceiling: col('CEILING'),
    floor: col('FLOOR'),
    description: col('DESCRIPTION'),
    states,
  };
}

/** `0.00` means "no fee published" in DMEPOS files; never serve it as $0. */
const zeroToNull = (v: number | null): number | null => (v === 0 ? null : v);

/**
 * CMS DMEPOS fee schedule CSV (`DMEPOS25_APR.csv`): six preamble lines (title split over three
 * lines, `April 2025 Fee Schedule`, two empty comma rows), a 114-column header with one
 * `XX (NR)`/`XX (R)` pair per state, `0.00` for "no fee", Description last and quoted when it
 * holds commas or inch marks. Stored long: one row per (HCPCS, Mod, Mod2, state), so a state
 * lookup is an index probe instead of a 114-column pivot.
 */
export const dmepos = defineDataset({
  id: 'dmepos',
  title: 'DMEPOS fee schedule (durable medical equipment, prosthetics, orthotics, supplies) by state',
  publisher: 'CMS DMEPOS Fee Schedule',
  formats: ['DMEPOS<YY>_<MON>.csv (CMS CSV: 6 preamble lines, HCPCS/Mod/Mod2/JURIS/CATG/Ceiling/Floor, per-state (NR)/(R) pairs, Description)'],
  row: DmeposRowSchema,
  key: ['hcpcs_code', 'modifier', 'modifier2', 'state'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year'],
  // Quotes stripped: some releases (and Excel re-saves) quote every header cell.
  detect: (s) => s.lines.slice(0, 20).some((l) => isDmeposHeader(l.replace(/"/g, '').split(','))),
  version(samples): VersionInfo | undefined {
    return samples.map(dmeposVersionOf).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<DmeposRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header, above } = await findHeader(records, file, isDmeposHeader, 'HCPCS, Mod, Mod2, JURIS, CATG, Ceiling, Floor, XX (NR), XX (R), …, Description');
    const layout = layoutOf(header.fields, file, header.line);
    const version = dmeposVersionOf({ name: file.name, text: '', lines: above.map((r) => r.fields.join(',')) });
    if (!version) throw new IngestError('no fee schedule month found (title line "<Month> <Year> Fee Schedule" or name DMEPOS<YY>_<MON>)', file.name, header.line);
    const year = Number(version.label.slice(0, 4));
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const hcpcs = r.text('HCPCS', fields[layout.hcpcs], { required: true, pattern: /^[A-Z0-9]{5}$/ });
      const modifier = r.text('Mod', fields[layout.mod], { pattern: /^[A-Z0-9]{2}$/ });
      const modifier2 = r.text('Mod2', fields[layout.mod2], { pattern: /^[A-Z0-9]{2}$/ });
      const jurisdiction = r.text('JURIS', fields[layout.juris], { required: true, pattern: /^[A-Z]$/ });
      const category = r.text('CATG', fields[layout.catg], { required: true, pattern: /^[A-Z]{2}$/ });
      const ceiling = zeroToNull(r.number('Ceiling', fields[layout.ceiling], { min: 0 }));
      const floor = zeroToNull(r.number('Floor', fields[layout.floor], { min: 0 }));
      const short_descriptor = clean(fields[layout.description]);
      const rows: DmeposRow[] = [];
      for (const s of layout.states) {
        rows.push({
          hcpcs_code: hcpcs,
          modifier,
          modifier2,
          state: s.state,
          non_rural_rate: zeroToNull(r.number(s.nrName, fields[s.nr], { min: 0 })),
          rural_rate: zeroToNull(r.number(s.rName, fields[s.r], { min: 0 })),
          ceiling,
          floor,
          jurisdiction,
          category,
          short_descriptor,
          year,
        });
      }
      // One source line is one record: any bad cell rejects the line with every issue it has.
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      for (const row of rows) yield { line, row };
    }
  },
});
