/**
 * The NCCI modifier vocabulary of the claim edits, as the CMS "National Correct Coding Initiative
 * Policy Manual for Medicare Services", Chapter I, section E (Modifiers and Modifier Indicators)
 * defines it: which modifiers bypass an indicator-1 PTP edit, and on which line.
 */

export const NCCI_POLICY_MANUAL = {
  title: 'CMS NCCI Policy Manual for Medicare Services, Chapter I, section E: Modifiers and Modifier Indicators',
  url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-policy-manual',
};

/** Anatomic modifiers: they bypass an indicator-1 edit only when the two lines name different sites. */
export const ANATOMIC_MODIFIERS: ReadonlySet<string> = new Set([
  'E1', 'E2', 'E3', 'E4', 'FA', 'F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7', 'F8', 'F9',
  'TA', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9', 'LT', 'RT', 'LC', 'LD', 'LM', 'RC', 'RI',
]);
/**
 * Distinct-service modifiers, each with its own meaning: 59 and its four subsets, -X{EPSU}, each
 * more specific than 59 (CMS MLN MM8863, CR 8863). On either line they bypass an indicator-1 edit.
 */
export const DISTINCT_MODIFIER_MEANINGS: Readonly<Record<string, string>> = {
  '59': 'distinct procedural service',
  XE: 'separate encounter: distinct because it occurred during a separate encounter',
  XS: 'separate structure: distinct because it was performed on a separate organ or structure',
  XP: 'separate practitioner: distinct because it was performed by a different practitioner',
  XU: 'unusual non-overlapping service: distinct because it does not overlap the usual components of the main service',
};
export const CITE_X_MODIFIERS = 'CMS MLN MM8863, CR 8863';
export const DISTINCT_MODIFIERS: ReadonlySet<string> = new Set(Object.keys(DISTINCT_MODIFIER_MEANINGS));
/** Global surgery modifiers (24, 25 and 57 count only on the E/M line, see below). */
export const GLOBAL_SURGERY_MODIFIERS: ReadonlySet<string> = new Set(['58', '78', '79']);
/** E/M modifiers: they bypass only when they sit on the evaluation and management line of the pair. */
export const EM_MODIFIERS: ReadonlySet<string> = new Set(['24', '25', '57']);
/** 27: multiple outpatient hospital E/M encounters the same day; 91: repeat clinical laboratory test. */
export const OTHER_BYPASS_MODIFIERS: ReadonlySet<string> = new Set(['27', '91']);

/** Evaluation and management codes (CPT 99202-99499) for the 24/25/57 rule. */
export const isEmCode = (code: string): boolean => /^99\d{3}$/.test(code) && code >= '99202' && code <= '99499';

