import { citeOwnTerms, rowForYear, SOURCES, type PaymentRule, type YearRow } from './rule.js';

/**
 * Modifier PT: a colorectal cancer screening test that became diagnostic or therapeutic in the same
 * encounter (a polyp removed during a screening colonoscopy, billed 45385-PT). The Part B
 * deductible does not apply (section 1833(b) of the Act, paragraph (8) and the sentence the
 * Affordable Care Act section 4104 added: "regardless of the code that is billed for the
 * establishment of a diagnosis as a result of the test, or for the removal of tissue"), and
 * section 1833(dd) of the Act (added by the Consolidated Appropriations Act, 2021, section 122)
 * pays a specified percent of the fee schedule amount, or of the OPPS amount for a covered OPD
 * service, so the beneficiary's coinsurance falls year by year (`PT_COINSURANCE`).
 */
const CITE_PT_DEDUCTIBLE = 'section 1833(b)(8) of the Social Security Act: no Part B deductible for colorectal cancer screening tests, regardless of the code billed for a diagnosis or a removal of tissue in the same encounter (Affordable Care Act section 4104)';
const CITE_PT_COINSURANCE = 'section 1833(dd) of the Social Security Act (Consolidated Appropriations Act, 2021, section 122); MLN MM12656 (CR 12656)';

/** The beneficiary's coinsurance with PT, by the service's year: 100 less section 1833(dd)'s specified percent. */
export const PT_COINSURANCE: readonly (YearRow & { percent: number })[] = [
  { from_year: 2022, to_year: 2022, percent: 20, citation: `${CITE_PT_COINSURANCE}: Medicare pays 80% for 2022` },
  { from_year: 2023, to_year: 2026, percent: 15, citation: `${CITE_PT_COINSURANCE}: Medicare pays 85% for 2023 through 2026` },
  { from_year: 2027, to_year: 2029, percent: 10, citation: `${CITE_PT_COINSURANCE}: Medicare pays 90% for 2027 through 2029` },
  { from_year: 2030, to_year: null, percent: 0, citation: `${CITE_PT_COINSURANCE}: from 2030 the screening test is paid in full (section 1833(a)(1)(Y), third sentence of section 1833(a))` },
];

/** The standard Part B coinsurance, for a year before section 1833(dd) (section 1833(a)(1); 42 CFR 410.152). */
const STANDARD_PERCENT = 20;

export const colorectalScreeningPt: PaymentRule = {
  id: 'colorectal_screening_pt',
  modifiers: ['PT'],
  applies_to: 'a line with modifier PT (a colorectal cancer screening test that became diagnostic or therapeutic)',
  does: 'no Part B deductible; the coinsurance of the service\'s year (PT_COINSURANCE), of the OPPS amount too in place of the Addendum B copayment',
  block: 'beneficiary_cost_sharing',
  citation: { title: `${CITE_PT_DEDUCTIBLE}; ${CITE_PT_COINSURANCE}`, url: SOURCES.ssa1833 },
  line(line) {
    if (!line.modifiers.includes('PT')) return null;
    const row = rowForYear(PT_COINSURANCE, line.year);
    const percent = row?.percent ?? STANDARD_PERCENT;
    const coinsurance = row ? `coinsurance ${percent}% for CY${line.year} (${row.citation})` : `coinsurance ${percent}% (section 1833(dd) of the Act reduces it from 2022; CY${line.year} is before it)`;
    const citation = `${CITE_PT_DEDUCTIBLE}; ${row?.citation ?? 'section 1833(a)(1) of the Social Security Act; 42 CFR 410.152'}`;
    const calculation = `modifier PT (a colorectal cancer screening test that became diagnostic or therapeutic): no Part B deductible (${CITE_PT_DEDUCTIBLE}); ${coinsurance}`;
    return { rule: 'colorectal_screening_pt', calculation, cost_sharing: { rule: 'colorectal_screening_pt', deductible_applies: false, coinsurance_percent: percent, citation, calculation } };
  },
  costSharing: citeOwnTerms('colorectal_screening_pt'),
};
