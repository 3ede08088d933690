import { makePtpDataset } from '../_ncci_ptp/family.js';

/**
 * Medicaid NCCI PTP edits for outpatient hospital services (quarterly public file, e.g.
 * `medicaid-ncci-q3-2026-ptp-edits-outpatient-hospital-services.txt`). Layout assumptions as
 * for `medicaid_ptp_prac` (README.md).
 */
export const medicaidPtpHosp = makePtpDataset(
  { id: 'medicaid_ptp_hosp', title: 'Medicaid NCCI procedure-to-procedure edits, outpatient hospital services', program: 'medicaid', ptpType: 'hosp' },
  {
    publisher: 'CMS Medicaid NCCI edit files (PTP, outpatient hospital services)',
    formats: ['medicaid-ncci-q<Q>-<YYYY>-ptp-edits-outpatient-hospital-services[-f<N>].txt (tab-delimited, title lines, wrapped header)'],
  },
);
