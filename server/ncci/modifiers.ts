/**
 * The NCCI modifier vocabulary of the claim edits, as the CMS "National Correct Coding Initiative
 * Policy Manual for Medicare Services", Chapter I, section E (Modifiers and Modifier Indicators)
 * defines it: which modifiers bypass an indicator-1 PTP edit, and on which line. The codes are the
 * `ncci` concern of lib/vocabulary/modifiers.ts.
 */
import { MODIFIERS, modifiersWhere } from '../../lib/vocabulary/modifiers.js';

export const NCCI_POLICY_MANUAL = {
  title: 'CMS NCCI Policy Manual for Medicare Services, Chapter I, section E: Modifiers and Modifier Indicators',
  url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-policy-manual',
};

/** Anatomic modifiers: they bypass an indicator-1 edit only when the two lines name different sites. */
export const ANATOMIC_MODIFIERS = modifiersWhere('ncci', 'anatomic');
/**
 * Distinct-service modifiers, each with its own meaning: 59 and its four subsets, -X{EPSU}, each
 * more specific than 59 (CMS MLN MM8863, CR 8863). On either line they bypass an indicator-1 edit.
 */
export const DISTINCT_MODIFIERS = modifiersWhere('ncci', 'distinct');
export const DISTINCT_MODIFIER_MEANINGS: Readonly<Record<string, string>> = Object.fromEntries([...DISTINCT_MODIFIERS].map((code) => [code, MODIFIERS[code]!.meaning]));
export const CITE_X_MODIFIERS = 'CMS MLN MM8863, CR 8863';
/** Global surgery modifiers (24, 25 and 57 count only on the E/M line, see below). */
export const GLOBAL_SURGERY_MODIFIERS = modifiersWhere('ncci', 'global_surgery');
/** E/M modifiers: they bypass only when they sit on the evaluation and management line of the pair. */
export const EM_MODIFIERS = modifiersWhere('ncci', 'em');
/** 27: multiple outpatient hospital E/M encounters the same day; 91: repeat clinical laboratory test. */
export const OTHER_BYPASS_MODIFIERS = modifiersWhere('ncci', 'other');

/** Evaluation and management codes (CPT 99202-99499) for the 24/25/57 rule. */
export const isEmCode = (code: string): boolean => /^99\d{3}$/.test(code) && code >= '99202' && code <= '99499';

