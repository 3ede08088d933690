import { IngestError } from '../_shared/issue.js';
import { normHeader } from '../_shared/header.js';

/** Where each field sits in a file, found from the wrapped 4-line header by content. */
export interface PtpLayout {
  col1: number;
  col2: number;
  prior1996?: number;
  effective?: number;
  deletion?: number;
  modifier: number;
  rationale?: number;
  /** Number of physical lines before the first data line (titles + header block). */
  skip: number;
  /** 1-based line of the header's first line. */
  headerLine: number;
}

/** The tab-separated cells of one physical line. */
export const cells = (line: string) => line.replace(/\r$/, '').split('\t');
/** The first header line: `Column 1`, `Column 2` in the first two cells. */
export const isHeaderStart = (f: string[]) => normHeader(f[0] ?? '') === 'COLUMN 1' && normHeader(f[1] ?? '') === 'COLUMN 2';
/** A wrapped header line: the first two cells empty, some other cell not. */
export const isContinuation = (f: string[]) => normHeader(f[0] ?? '') === '' && normHeader(f[1] ?? '') === '' && f.some((c) => normHeader(c) !== '');

/**
 * Finds the header block (the `Column 1 / Column 2` line and the wrapped lines under it whose
 * first two cells are empty) and maps fields by the joined text of each header column, so title
 * lines of any count and a reordered column are handled; a missing field is a broken header.
 */
export function locatePtpLayout(lines: string[], fileName: string, program: 'medicare' | 'medicaid'): PtpLayout {
  const start = lines.slice(0, 200).findIndex((l) => isHeaderStart(cells(l)));
  if (start < 0) {
    throw new IngestError('no PTP header row found (expected "Column 1<TAB>Column 2<TAB>...")', fileName, Math.min(lines.length, 200));
  }
  const block = [cells(lines[start]!)];
  let i = start + 1;
  while (i < lines.length && isContinuation(cells(lines[i]!))) block.push(cells(lines[i++]!));
  if (i >= lines.length) throw new IngestError('header is not followed by data within the first 64 KiB', fileName, i);
  const width = Math.max(...block.map((b) => b.length));
  const joined = Array.from({ length: width }, (_, c) => normHeader(block.map((b) => b[c] ?? '').join(' ')));
  const find = (re: RegExp) => {
    const k = joined.findIndex((h) => re.test(h));
    return k < 0 ? undefined : k;
  };
  const layout = {
    col1: 0,
    col2: 1,
    prior1996: find(/PRIOR TO 1996|IN EXISTENCE/),
    effective: find(/EFFECTIVE/),
    deletion: find(/DELETION/),
    modifier: find(/MODIFIER/),
    rationale: find(/RATIONALE/),
    skip: i,
    headerLine: start + 1,
  };
  const required: (keyof typeof layout)[] =
    program === 'medicare' ? ['prior1996', 'effective', 'deletion', 'modifier', 'rationale'] : ['modifier'];
  const missing = required.filter((k) => layout[k] === undefined);
  if (missing.length) {
    throw new IngestError(
      `broken PTP header: no ${missing.join(', ')} column (header reads: ${joined.filter(Boolean).join(' | ')})`,
      fileName,
      start + 1,
    );
  }
  return layout as PtpLayout;
}

/** Number of fields a data line may have: the rightmost mapped column + 1. */
export function layoutWidth(l: PtpLayout): number {
  return Math.max(l.col1, l.col2, l.modifier, l.prior1996 ?? 0, l.effective ?? 0, l.deletion ?? 0, l.rationale ?? 0) + 1;
}

/** A line whose every field is empty (`\t\t\t`): skipped by both paths, never a reject. */
export const isEmptyLine = (fields: string[]) => fields.every((f) => f === '');
