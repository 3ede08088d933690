import { makePtpDataset } from '../_ncci_ptp/family.js';

/**
 * Medicaid NCCI PTP edits for practitioner services (quarterly public file, e.g.
 * `medicaid-ncci-q3-2026-ptp-edits-practitioner-services.txt`). Same layout family as Medicare;
 * the quarter comes from the file name or title (`2026Q3`). No real file was available: see
 * README.md for the layout assumptions.
 */
export const medicaidPtpPrac = makePtpDataset(
  { id: 'medicaid_ptp_prac', title: 'Medicaid NCCI procedure-to-procedure edits, practitioner services', program: 'medicaid', ptpType: 'prac' },
  {
    publisher: 'CMS Medicaid NCCI edit files (PTP, practitioner services)',
    formats: ['medicaid-ncci-q<Q>-<YYYY>-ptp-edits-practitioner-services[-f<N>].txt (tab-delimited, title lines, wrapped header)'],
  },
);
