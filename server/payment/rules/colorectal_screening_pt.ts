import { SOURCES, type PaymentRule } from './rule.js';

/**
 * Modifier PT: a colorectal cancer screening test that became diagnostic or therapeutic in the same
 * encounter (a polyp removed during a screening colonoscopy, billed 45385-PT). The Part B
 * deductible does not apply (section 1833(b) of the Act, paragraph (8) and the sentence the
 * Affordable Care Act section 4104 added: "regardless of the code that is billed for the
 * establishment of a diagnosis as a result of the test, or for the removal of tissue"), and
 * section 1833(dd) of the Act (added by the Consolidated Appropriations Act, 2021, section 122)
 * pays a specified percent of the fee schedule amount, or of the OPPS amount for a covered OPD
 * service, so the beneficiary's coinsurance falls year by year (20% in 2022, 15% in 2023-2026, 10%
 * in 2027-2029, none from 2030): the year's `colorectal_pt_coinsurance_percent` figure of
 * `medicare_yearly_figures`. Before 2022 the coinsurance is the year's standard Part B percent.
 */
const CITE_PT_DEDUCTIBLE = 'section 1833(b)(8) of the Social Security Act: no Part B deductible for colorectal cancer screening tests, regardless of the code billed for a diagnosis or a removal of tissue in the same encounter (Affordable Care Act section 4104)';
const CITE_PT_COINSURANCE = 'section 1833(dd) of the Social Security Act (Consolidated Appropriations Act, 2021, section 122); MLN MM12656 (CR 12656)';

/** The first year section 1833(dd) reduces the coinsurance (a year before it keeps the standard percent). */
const SECTION_1833DD_FROM = 2022;

const ID = 'colorectal_screening_pt';

export const colorectalScreeningPt: PaymentRule = {
  id: ID,
  modifiers: ['PT'],
  applies_to: 'a line with modifier PT (a colorectal cancer screening test that became diagnostic or therapeutic)',
  does: "no Part B deductible; the year's section 1833(dd) coinsurance (medicare_yearly_figures), of the OPPS amount too in place of the Addendum B copayment",
  block: 'beneficiary_cost_sharing',
  citation: { title: `${CITE_PT_DEDUCTIBLE}; ${CITE_PT_COINSURANCE}`, url: SOURCES.ssa1833 },
  line(line) {
    if (!line.modifiers.includes('PT')) return null;
    const before = line.year < SECTION_1833DD_FROM;
    const figure = line.figures?.figure(before ? 'part_b_coinsurance_percent' : 'colorectal_pt_coinsurance_percent');
    const percent = figure ? figure.value.toNumber() : null;
    const coinsurance = !figure
      ? `no CY${line.year} coinsurance percent is loaded (medicare_yearly_figures): no coinsurance is counted`
      : before
        ? `coinsurance ${percent}% (section 1833(dd) of the Act reduces it from ${SECTION_1833DD_FROM}; CY${line.year} is before it)`
        : `coinsurance ${percent}% for CY${line.year} (${figure.citation.title})`;
    const citation = `${CITE_PT_DEDUCTIBLE}; ${figure?.citation.title ?? CITE_PT_COINSURANCE}`;
    const calculation = `modifier PT (a colorectal cancer screening test that became diagnostic or therapeutic): no Part B deductible (${CITE_PT_DEDUCTIBLE}); ${coinsurance}`;
    return { rule: ID, calculation, cost_sharing: { rule: ID, deductible_applies: false, coinsurance_percent: percent, citation, calculation } };
  },
  costSharing(s) {
    if (s.terms?.rule !== ID) return;
    s.citations.push(s.terms.citation);
    s.calculation.push(s.terms.calculation);
    if (s.terms.coinsurance_percent === null) s.warnings.push(`beneficiary_cost_sharing: no CY${s.year} modifier PT coinsurance percent is loaded (medicare_yearly_figures); no coinsurance or OPPS copayment is counted`);
  },
};
