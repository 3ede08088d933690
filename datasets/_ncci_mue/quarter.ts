import { toIsoDate } from '../_shared/values.js';
import { quarterLabel, quarterStart } from '../_shared/dates.js';

/**
 * HCPCS Level I/II code shapes used by NCCI files: CPT `99213`, Category II/III and PLA codes
 * (`0001F`, `0042T`, `0001U`, `0002M`) and Level II `J9035`. Upper case only (the files are).
 */
export const PROC_CODE_RE = /^(?:\d{4}[0-9A-Z]|[A-Z]\d{4})$/;

/**
 * The quarter a CMS NCCI file belongs to, from its name only (the MUE and AOC files carry no
 * version inside): `MCR_MUE_PractitionerServices_Eff_07-01-2026.csv` (effective date),
 * `AOC_V2026Q3-MCR.csv` or `MCD_MUE_Practitioner_Services_2026Q3.csv` (quarter label).
 * Returns the label `2026Q3` and the effective date (the stated date, else the quarter start).
 */
export function quarterFromFileName(name: string): { label: string; effective_date: string } | undefined {
  const eff = /Eff[_ -]?(\d{1,2}[-_.]\d{1,2}[-_.]\d{4})/i.exec(name);
  if (eff) {
    const iso = toIsoDate(eff[1]!.replace(/[_.]/g, '-'));
    if (iso) return { label: quarterLabel(iso), effective_date: iso };
  }
  const q = /(?:^|[^0-9])(20\d{2})[ _-]?Q([1-4])(?![0-9])/i.exec(name);
  if (q) {
    return { label: `${q[1]}Q${q[2]}`, effective_date: quarterStart(Number(q[1]), Number(q[2])) };
  }
  return undefined;
}
