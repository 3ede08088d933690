import type { ClaimFix } from '../../lib/vocabulary/claim_fixes.js';
import type { RemedyCitation } from '../denials/remedy.js';
import type { CheckKind } from './schemas.js';

/**
 * What each failed check predicts the payer sends back, and the correction that prevents it, each
 * with where it is published. The remedy after the fact (appeal, resubmit, by when) is not here: it
 * is the denial rules table's (`server/denials/table.ts`), asked with the predicted group, CARC and
 * remarks as a remittance explanation asks it.
 */
export interface Prediction {
  /** `rejected`: returned before adjudication (277CA, or unprocessable with CO-16 and MA130), no CARC. */
  rejected?: true;
  group: 'CO' | 'PR' | 'OA' | null;
  carc: string | null;
  rarc: string[];
  fix: ClaimFix;
  citations: RemedyCitation[];
}

const CPM = (ch: string) => `https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c${ch}.pdf`;
const X12_CARC = 'https://x12.org/codes/claim-adjustment-reason-codes';
const X12_RARC = 'https://x12.org/codes/remittance-advice-remark-codes';
const NCCI_MANUAL = 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-policy-manual';
const carc = (code: string, what: string): RemedyCitation => ({ title: `X12 Claim Adjustment Reason Code ${code}: ${what}`, url: X12_CARC });
const rarc = (code: string, what: string): RemedyCitation => ({ title: `X12 Remittance Advice Remark Code ${code}: ${what}`, url: X12_RARC });

export const CITE = {
  ncci: { title: 'Medicare NCCI Policy Manual, ch. I, section E (modifiers and modifier indicators: 1 allows an NCCI-associated modifier, 0 allows none)', url: NCCI_MANUAL, section: 'I.E' },
  mue: { title: 'CMS: Medicare NCCI Medically Unlikely Edits (MAI 1 claim line edit; 2 and 3 date-of-service edits)', url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-medically-unlikely-edits' },
  aoc: { title: 'CMS: Medicare NCCI add-on code edits (type 1: paid only with a listed primary code)', url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-add-code-edits' },
  coverage: { title: 'Social Security Act section 1862(a)(1)(A): items and services not reasonable and necessary are not covered; the LCD billing article lists the covered ICD-10-CM codes', url: 'https://www.ssa.gov/OP_Home/ssact/title18/1862.htm', section: '1862(a)(1)(A)' },
  abn: { title: 'Social Security Act section 1879; Medicare Claims Processing Manual, Pub. 100-04, ch. 30, sections 40.3.6 (GA: an ABN is on file, the beneficiary is liable; GZ: none, the provider is) and 50 (the ABN)', url: CPM('30'), section: '40.3.6, 50' },
  unprocessable: { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 80.3.2 (incomplete or invalid claims are returned as unprocessable, without appeal rights)', url: CPM('01'), section: '80.3.2' },
  tr3Professional: { title: 'ASC X12 005010X222A1 (837 professional) implementation guide: required loops, segments and elements; 277CA front-end rejection', url: 'https://x12.org/products' },
  timelyFiling: { title: '42 CFR 424.44 (Medicare: 12 months after the date of service); the payer\'s own filing rule where it has one', url: 'https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-424/subpart-C/section-424.44' },
  globalSurgery: { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 12, sections 40.1-40.4 (global surgery: modifiers 24, 25, 57 and 79 identify services outside the global package)', url: CPM('12'), section: '40.1-40.4' },
  duplicate: { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 120 (detection of duplicate claims)', url: CPM('01'), section: '120' },
  aspCrosswalk: { title: 'CMS ASP NDC-HCPCS crosswalk: the NDCs billed under each HCPCS drug code', url: 'https://www.cms.gov/medicare/payment/part-b-drugs/asp-pricing-files' },
  npi: { title: '45 CFR 162.406 and CMS NPI check digit (the Luhn formula over 80840 and the first nine digits)', url: 'https://www.ecfr.gov/current/title-45/subtitle-A/subchapter-C/part-162/subpart-D/section-162.406' },
} satisfies Record<string, RemedyCitation>;

/** The prediction of each kind of failure (a few kinds have more than one: see `predict`). */
export const PREDICTIONS = {
  ptp_modifier: { group: 'CO', carc: '97', rarc: ['M80'], fix: 'add_modifier', citations: [CITE.ncci, carc('97', 'the benefit for this service is included in the payment for another service already adjudicated'), rarc('M80', 'not covered when performed during the same session/date as a previously processed service')] },
  ptp_never: { group: 'CO', carc: '97', rarc: ['M80'], fix: 'remove_line', citations: [CITE.ncci, carc('97', 'the benefit for this service is included in the payment for another service already adjudicated'), rarc('M80', 'not covered when performed during the same session/date as a previously processed service')] },
  mue: { group: 'CO', carc: '151', rarc: ['N362'], fix: 'reduce_or_split_units', citations: [CITE.mue, carc('151', 'payment adjusted because the payer deems the information submitted does not support this many services'), rarc('N362', 'the number of days or units of service exceeds the acceptable maximum')] },
  aoc: { group: 'CO', carc: 'B15', rarc: [], fix: 'remove_line', citations: [CITE.aoc, carc('B15', 'this service requires that a qualifying service be received and covered; the qualifying service was not received or adjudicated')] },
  coverage: { group: 'CO', carc: '50', rarc: ['N115'], fix: 'add_or_repoint_diagnosis', citations: [CITE.coverage, carc('50', 'non-covered services because this is not deemed a medical necessity by the payer'), rarc('N115', 'this decision was based on a Local Coverage Determination')] },
  coverage_ga: { group: 'PR', carc: '50', rarc: ['N115'], fix: 'review', citations: [CITE.coverage, CITE.abn, carc('50', 'non-covered services because this is not deemed a medical necessity by the payer')] },
  coverage_no_abn: { group: 'CO', carc: '50', rarc: ['N115'], fix: 'obtain_abn', citations: [CITE.coverage, CITE.abn, carc('50', 'non-covered services because this is not deemed a medical necessity by the payer')] },
  code_invalid_on_date: { group: 'CO', carc: '181', rarc: [], fix: 'review', citations: [carc('181', 'procedure code was invalid on the date of service')] },
  hcpcs_code_invalid_on_date: { group: 'CO', carc: '181', rarc: [], fix: 'correct_code', citations: [carc('181', 'procedure code was invalid on the date of service')] },
  hcpcs_modifier_invalid_on_date: { group: 'CO', carc: '182', rarc: [], fix: 'correct_code', citations: [carc('182', 'procedure modifier was invalid on the date of service')] },
  code_not_payable: { group: 'CO', carc: '16', rarc: ['M51'], fix: 'review', citations: [carc('16', 'claim/service lacks information or has submission/billing error(s)'), rarc('M51', 'missing/incomplete/invalid procedure code(s)')] },
  modifier: { group: 'CO', carc: '4', rarc: [], fix: 'review', citations: [CITE.ncci, carc('4', 'the procedure code is inconsistent with the modifier used')] },
  diagnosis: { group: 'CO', carc: '16', rarc: ['M76'], fix: 'add_or_repoint_diagnosis', citations: [CITE.unprocessable, carc('16', 'claim/service lacks information or has submission/billing error(s)'), rarc('M76', 'missing/incomplete/invalid diagnosis or condition')] },
  prior_auth: { group: 'CO', carc: '197', rarc: [], fix: 'obtain_authorization', citations: [carc('197', 'precertification/notification/authorization/pre-treatment absent')] },
  duplicate: { group: 'OA', carc: '18', rarc: [], fix: 'remove_line', citations: [CITE.duplicate, carc('18', 'exact duplicate claim/service')] },
  global_surgery: { group: 'CO', carc: '97', rarc: ['M144'], fix: 'add_modifier', citations: [CITE.globalSurgery, carc('97', 'the benefit for this service is included in the payment for another service already adjudicated'), rarc('M144', 'pre-/post-operative care payment is included in the allowance for the surgery/procedure')] },
  ndc: { group: 'CO', carc: '16', rarc: ['M119'], fix: 'review', citations: [CITE.aspCrosswalk, carc('16', 'claim/service lacks information or has submission/billing error(s)'), rarc('M119', 'missing/incomplete/invalid/deactivated/withdrawn National Drug Code (NDC)')] },
  place_of_service: { group: 'CO', carc: '5', rarc: [], fix: 'review', citations: [{ title: 'CMS Place of Service Code Set', url: 'https://www.cms.gov/medicare/coding-billing/place-of-service-codes/code-sets' }, carc('5', 'the procedure code/type of bill is inconsistent with the place of service')] },
  timely_filing: { group: 'CO', carc: '29', rarc: [], fix: 'review', citations: [CITE.timelyFiling, carc('29', 'the time limit for filing has expired')] },
  structure: { rejected: true, group: null, carc: null, rarc: [], fix: 'correct_structure', citations: [CITE.tr3Professional, CITE.unprocessable] },
} as const satisfies Record<string, Prediction>;
export type PredictionId = keyof typeof PREDICTIONS;

/** The checks a prediction belongs to (for the summary and the CSV). */
export const KIND_OF: Record<PredictionId, CheckKind> = {
  ptp_modifier: 'ptp',
  ptp_never: 'ptp',
  mue: 'mue',
  aoc: 'aoc',
  coverage: 'coverage',
  coverage_ga: 'coverage',
  coverage_no_abn: 'coverage',
  code_invalid_on_date: 'code',
  hcpcs_code_invalid_on_date: 'code',
  hcpcs_modifier_invalid_on_date: 'modifier',
  code_not_payable: 'code',
  modifier: 'modifier',
  diagnosis: 'diagnosis',
  prior_auth: 'prior_auth',
  duplicate: 'duplicate',
  global_surgery: 'global_surgery',
  ndc: 'ndc',
  place_of_service: 'place_of_service',
  timely_filing: 'timely_filing',
  structure: 'structure',
};
