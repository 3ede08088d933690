import { findRvuRows, getRvu } from '../../../datasets/mpfs_rvu/queries.js';
import { ownValue } from '../../../lib/own.js';
import { NotFoundError } from '../../../warehouse/errors.js';
import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_PCTC = 'Medicare Claims Processing Manual ch. 13 section 20 (professional and technical components); RVU file PCTC IND';

/**
 * PC/TC indicator 4 families (global-test-only codes): the RVU file marks the global code but not
 * its components; the professional-only codes (PC/TC indicator 2) and technical-only codes (3) of
 * each family are named by the CPT descriptors. At a hospital the physician bills the professional
 * code(s) and the hospital the technical one(s) (RVU file documentation, "PC/TC Indicator" 4).
 */
export const PCTC4_FAMILIES: Readonly<Record<string, { professional: string; technical: readonly string[] }>> = {
  '93000': { professional: '93010', technical: ['93005'] }, // electrocardiogram
  '93040': { professional: '93042', technical: ['93041'] }, // rhythm ECG
  '93224': { professional: '93227', technical: ['93225', '93226'] }, // ECG monitoring up to 48 hours
  '93268': { professional: '93272', technical: ['93270', '93271'] }, // event recording
  '93784': { professional: '93790', technical: ['93786', '93788'] }, // ambulatory blood pressure monitoring
  '94014': { professional: '94016', technical: ['94015'] }, // patient-initiated spirometric recording
};

/**
 * The physician's part of a code in a hospital setting, where the hospital is paid the technical
 * component (OPPS or cost): a PC/TC indicator 1 code without a modifier is priced from its -26 row;
 * a PC/TC indicator 4 code from the professional-only code of its family (PCTC4_FAMILIES); a
 * technical component (a TC row, indicator 3) and an incident-to service (indicator 5) have no
 * physician payment there (ch. 13 section 20; RVU25D.pdf, "PC/TC Indicator").
 */
export const professionalComponent: PaymentRule = {
  id: 'professional_component',
  modifiers: [],
  applies_to: 'a hospital setting (a hospital ccn at a facility place of service; without ccn, place of service 19, 21, 22, 23, 51, 52 or 61): PC/TC indicators 1, 3, 4, 5 and TC rows',
  does: 'prices the professional component: indicator 1 its -26 row, indicator 4 the professional-only code of its family; a technical component or an incident-to service has no physician amount',
  block: 'physician',
  citation: { title: CITE_PCTC, url: SOURCES.claimsManualCh13 },
  async hospitalSetting({ snapshot, row, date, where, trace, calculation }) {
    const code = row.hcpcs;
    if (row.modifier === 'TC' || row.pctc_indicator === '3') {
      trace.warn(`physician: ${code}${row.modifier ? `-${row.modifier}` : ''} is a technical component (PC/TC indicator ${row.pctc_indicator}): ${where} it is paid to the facility (OPPS or cost), not under the physician fee schedule`);
      return null;
    }
    if (row.pctc_indicator === '5') {
      trace.warn(`physician: ${code} is an incident-to service (PC/TC indicator 5): not paid under the physician fee schedule ${where}`);
      return null;
    }
    if (row.pctc_indicator === '1' && row.modifier === '') {
      try {
        const pc = await getRvu(snapshot, code, '26', date);
        trace.warn(`physician: ${code} has professional and technical components (PC/TC indicator 1); ${where} the physician bills the professional component, so ${code}-26 is priced and the facility is paid the technical component`);
        calculation.push(`PC/TC indicator 1 ${where}: ${code}-26 priced, the technical component is the facility's (${CITE_PCTC})`);
        return pc.row;
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
        trace.degrade().warn(`physician: ${code} has PC/TC indicator 1 but no -26 row is loaded; no physician amount ${where}`);
        return null;
      }
    }
    if (row.pctc_indicator === '4' && row.modifier === '') {
      const fam = ownValue(PCTC4_FAMILIES, code);
      if (!fam) {
        trace.warn(`physician: ${code} is a global-test-only code (PC/TC indicator 4): ${where} the physician bills the family's professional-only code and the hospital its technical-only code, and ${code} is not in the table of families; no physician amount (${CITE_PCTC})`);
        return null;
      }
      const rows = await findRvuRows(snapshot, fam.professional);
      if (rows.length === 0) {
        trace.degrade().warn(`physician: ${code} is a global-test-only code (PC/TC indicator 4): ${where} the physician bills ${fam.professional}, which is not in the loaded RVU file; no physician amount`);
        return null;
      }
      const pc = await getRvu(snapshot, fam.professional, '', date);
      trace.fallback(...pc.warnings);
      trace.warn(`physician: ${code} is a global-test-only code (PC/TC indicator 4): ${where} the physician bills the professional code ${fam.professional} (priced) and the hospital the technical code ${fam.technical.join(' + ')}`);
      calculation.push(`PC/TC indicator 4 ${where}: ${fam.professional} (professional only) priced for ${code}; the technical code ${fam.technical.join(' + ')} is the hospital's (${CITE_PCTC})`);
      return pc.row;
    }
    return row;
  },
};
