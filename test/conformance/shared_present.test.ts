import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SHARED = process.env.RCM_SHARED_DATA ?? resolve(import.meta.dirname, '../../../shared/data');

/**
 * The other conformance files skip when their real file is absent (a developer without
 * ../shared). This one does not: when the suite runs, every real file it relies on must be there,
 * so a moved or renamed publisher file fails CI instead of silently skipping its checks.
 */
const FILES = [
  'mpfs-rvu/PPRRVU2025_Oct.csv',
  'mpfs-rvu/PPRRVU2026_Jul_nonQPP.excerpt.redacted.csv',
  'gpci/GPCI2025.csv',
  'gpci/GPCI2026.csv',
  'gpci/25LOCCO.csv',
  'gpci/25LOCCO.txt',
  'gpci/ZIP5_OCT2025.txt',
  'pos-facilities/Hospital_General_Information.csv',
  'dmepos/DMEPOS25_APR.csv',
  'dmepos/DME Rural ZIP Code Quarter 1, 2025.csv',
  'clfs/PUF_CLFS_CY2026_Q3V1.csv',
  'clfs/PUF_CLFS_CY2026_Q3V1.txt',
  'clfs/CLFS 2025 Q2V1.csv',
  'asp-drug-pricing/section 508 version of Jan 2025 ASP Pricing File updated 030725.csv',
  'opps-addendum-b/2023_January_Web_Addendum_B.12212022.xlsx',
  'opps-addendum-b/Section 508 version of January 2025 Web Addendum A.12.31.24.excerpt.csv',
  'ncci-ptp/ccipra-v322r0-f1.excerpt.txt',
  'ncci-mue/MCR_MUE_PractitionerServices_Eff_07-01-2026.excerpt.csv',
];

describe('real publisher files for the conformance suite', () => {
  for (const f of FILES) {
    it(`${f} is present in ${SHARED}`, () => {
      expect(existsSync(join(SHARED, f))).toBe(true);
    });
  }
});
