// File names, version labels and quarters of the PTP family's publisher files.

/** CMS ships every quarterly Medicare PTP release in exactly this many parts (f1..f4). */
export const MEDICARE_PTP_PARTS = 4;

/** Which publisher file family a PTP dataset reads. */
export interface PtpFlavor<Id extends string = string> {
  id: Id;
  title: string;
  program: 'medicare' | 'medicaid';
  ptpType: 'prac' | 'hosp';
}

/**
 * NCCI version label to its quarter. CMS numbers releases `<major>.<minor>`: the major number
 * is the calendar year minus 1994 and the minor number is the quarter minus one. Checked against
 * the files: `ccipra-v322r0` is 32.2 = 2026 Q3 (SOURCE.md, zip name `...-2026q3-...`) and the
 * same release's MUE file is `Eff_07-01-2026`; 32.2 also carries the deletion date 20260630
 * (edits retired by the July release). Older releases agree (26.0 = January 2020).
 */
export function ncciVersionQuarter(major: number, minor: number): { year: number; quarter: number } | undefined {
  if (!Number.isInteger(major) || !Number.isInteger(minor) || minor < 0 || minor > 3 || major < 1) return undefined;
  return { year: 1994 + major, quarter: minor + 1 };
}

/** Parsed Medicare PTP file name: `ccipra-v322r0-f1.txt`, `ccioph-v322r0-f3.TXT` (case-insensitive). */
export interface MedicarePtpName {
  family: 'pra' | 'oph';
  major: number;
  minor: number;
  revision: number;
  part: number;
}

const MEDICARE_NAME_RE = /^cci(pra|oph)-v(\d{2,3})(\d)r(\d+)-f(\d+)(?:\.[a-z]+)*\.txt$/i;

/** Reads the version and part out of a CMS Medicare PTP file name; undefined when it does not fit. */
export function parseMedicarePtpName(name: string): MedicarePtpName | undefined {
  const m = MEDICARE_NAME_RE.exec(name);
  if (!m) return undefined;
  return {
    family: m[1]!.toLowerCase() as 'pra' | 'oph',
    major: Number(m[2]),
    minor: Number(m[3]),
    revision: Number(m[4]),
    part: Number(m[5]),
  };
}

/** `32.2` for revision 0, `32.2r1` for a re-posted revision of the same quarter. */
export function medicareVersionLabel(n: Pick<MedicarePtpName, 'major' | 'minor' | 'revision'>): string {
  return `${n.major}.${n.minor}${n.revision ? `r${n.revision}` : ''}`;
}

/**
 * Medicaid NCCI file names and titles carry the quarter, not a version number:
 * `medicaid-ncci-q3-2026-ptp-edits-practitioner-services...`, `..._2026Q3_...`, `Quarter 3 2026`.
 */
export function medicaidQuarterOf(text: string): { year: number; quarter: number } | undefined {
  let m = /\bq(?:uarter)?[\s_-]?([1-4])[\s_-]+(20\d{2})(?!\d)/i.exec(text);
  if (m) return { year: Number(m[2]), quarter: Number(m[1]) };
  m = /(?<!\d)(20\d{2})[\s_-]?q([1-4])(?![0-9])/i.exec(text);
  if (m) return { year: Number(m[1]), quarter: Number(m[2]) };
  return undefined;
}

/** `-f2`, `_part3`: the part number a Medicaid file name may carry. */
const PART_RE = /(?:^|[-_ ])(?:f|part)[-_]?(\d{1,2})(?=[-_. ]|$)/i;

/** The part number of a Medicaid PTP file name, if it names one. */
export function medicaidPart(name: string): number | undefined {
  const m = PART_RE.exec(name.replace(/\.[^.]+$/, ''));
  return m ? Number(m[1]) : undefined;
}
