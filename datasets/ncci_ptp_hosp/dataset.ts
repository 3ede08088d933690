import { makePtpDataset } from '../_ncci_ptp/family.js';

/**
 * Medicare NCCI PTP edits for hospital outpatient services (`ccioph-v322r0-f1.txt` .. `-f4`):
 * the practitioner layout (titles, wrapped header, 7 tab-separated fields), a different edit set.
 */
export const ncciPtpHosp = makePtpDataset(
  { id: 'ncci_ptp_hosp', title: 'Medicare NCCI procedure-to-procedure edits, hospital outpatient', program: 'medicare', ptpType: 'hosp' },
  {
    publisher: 'CMS Medicare NCCI PTP edits (hospital outpatient)',
    formats: ['ccioph-v<MMm>r<R>-f1..f4.txt (tab-delimited, 2 title lines, 4-line wrapped header, all 4 parts in one ingest)'],
  },
);
