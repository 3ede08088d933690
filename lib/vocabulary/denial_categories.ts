import type { CarcClass } from './carc.js';

/**
 * The categories a curator files a payer's denial pattern under (the payers dataset's
 * `denial_category`), each with the CARC class it means. A pattern whose category's class is not
 * its CARC's class contradicts the vocabulary and is refused at ingest; the denial rules read a
 * pattern as "at this payer, this code is of this class".
 */
export const DENIAL_CATEGORY_CLASS = {
  missing_information: 'missing_information',
  coding: 'coding',
  bundling: 'bundling',
  medical_necessity: 'coverage',
  units_exceed_limit: 'units',
  documentation: 'documentation',
  prior_authorization: 'authorization',
  timely_filing: 'timely_filing',
  coordination_of_benefits: 'other_payer',
  eligibility: 'eligibility',
  non_covered: 'non_covered',
  duplicate: 'duplicate',
  contractual: 'contractual',
} as const satisfies Record<string, CarcClass>;
export type DenialCategory = keyof typeof DENIAL_CATEGORY_CLASS;
export const DENIAL_CATEGORIES = Object.keys(DENIAL_CATEGORY_CLASS) as [DenialCategory, ...DenialCategory[]];
