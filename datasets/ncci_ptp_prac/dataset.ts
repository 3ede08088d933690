import { makePtpDataset } from '../_ncci_ptp/family.js';

/**
 * Medicare NCCI PTP edits for practitioners (`ccipra-v322r0-f1.txt` .. `-f4`): 2 title lines,
 * a header wrapped over 4 lines, tab-separated, CP1252, deleted edits kept. One quarter is all
 * four parts, loaded together; the version `32.2` is 2026 Q3 (see `ncciVersionQuarter`).
 */
export const ncciPtpPrac = makePtpDataset(
  { id: 'ncci_ptp_prac', title: 'Medicare NCCI procedure-to-procedure edits, practitioner', program: 'medicare', ptpType: 'prac' },
  {
    publisher: 'CMS Medicare NCCI PTP edits (practitioner)',
    formats: ['ccipra-v<MMm>r<R>-f1..f4.txt (tab-delimited, 2 title lines, 4-line wrapped header, all 4 parts in one ingest)'],
  },
);
