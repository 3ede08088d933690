/**
 * An 837 claim as `read837.ts` reads it (professional 005010X222A1 and institutional 005010X223A2/A3),
 * before any check: what the file says, with the 1-based segment position of each part so every
 * finding names where it is. Amounts stay the decimal text of the file (exact arithmetic happens
 * in the checks); dates are `YYYY-MM-DD` or null when the file has none or an unreadable one (the
 * reader then adds an issue).
 */

export type ClaimKind = 'professional' | 'institutional';

/** What the reader found wrong in the file's structure: a required segment or element missing or unreadable. */
export interface ReadIssue {
  /** `missing_segment`, `missing_element`, `invalid_value`, `unexpected_segment`. */
  code: 'missing_segment' | 'missing_element' | 'invalid_value' | 'unexpected_segment';
  /** What is wrong, in words, never the file's text (an 837 carries PHI): `CLM02 (total claim charge) is missing`. */
  message: string;
  /** The segment id it concerns (`CLM`, `SV1`, `HI`, `NM1*85` ...). */
  segment_id: string;
  /** 1-based position of the segment in the file; for a missing segment, the position of the loop that lacks it. */
  segment: number;
  /** The loop of the TR3 it belongs to (`2300`, `2400`, `2010AA` ...). */
  loop: string;
}

export interface ClaimProvider {
  /** NM103 (last or organization name); null when absent. */
  name: string | null;
  /** NM109 when NM108 is XX. */
  npi: string | null;
  /** REF*EI or NM109 with NM108 24/34 (a billing provider's tax id). */
  tin: string | null;
  /** PRV03 of the loop (a taxonomy code). */
  taxonomy: string | null;
  /** N4 of the loop. */
  state: string | null;
  zip: string | null;
  segment: number;
}

export interface Diagnosis {
  /** As sent, without a period (`M47812`). */
  code: string;
  /** The HI qualifier: ABK/BK principal, ABF/BF other, ABJ admitting, APR reason for visit, ABN external cause ... */
  qualifier: string;
  /** True for ABK or BK (and ABJ/APR for neither: only the principal). */
  principal: boolean;
  /** 1-based position among the claim's diagnosis codes (ABK/BK and ABF/BF, in file order): what SV107 points at. */
  pointer: number | null;
  segment: number;
}

export interface Line {
  /** LX01, else the line's place in the claim. */
  line_number: number;
  /** The SV1 or SV2 segment's position. */
  segment: number;
  /** SV201 (institutional). */
  revenue_code: string | null;
  /** The procedure code (SV101-2 / SV202-2); null for an institutional line with a revenue code only. */
  code: string | null;
  /** SV101-1 / SV202-1: HC (HCPCS/CPT), ER, IV, WK, N4 ... */
  code_qualifier: string | null;
  /** SV101-3..6 / SV202-3..6. */
  modifiers: string[];
  /** SV102 / SV203: the line charge, decimal text. */
  charged: string | null;
  /** SV103 / SV204: UN (units) or MJ (minutes). */
  unit_basis: string | null;
  /** SV104 / SV205 as a number; null when absent or unreadable. */
  units: number | null;
  /** SV105 (professional), else the claim's. */
  place_of_service: string | null;
  /** SV107-1..4 (professional): 1-based pointers into the claim's diagnoses, as sent. */
  diagnosis_pointers: number[];
  /** DTP*472 (D8 or RD8 start); an institutional line without one takes nothing here (the claim's statement dates apply). */
  date_from: string | null;
  date_to: string | null;
  /** REF*6R: the provider's line control number (what an 835's REF*6R echoes). */
  control_number: string | null;
  /** 2410 LIN*N4: the drug's NDC (11 digits as sent) and its segment. */
  ndc: string | null;
  ndc_segment: number | null;
  /** REF*G1 of the line (2400). */
  prior_authorization: string | null;
  /** 2420A NM1*82: the line's rendering provider NPI. */
  rendering_npi: string | null;
}

export interface Claim {
  kind: ClaimKind;
  /** 0-based index of the transaction (ST..SE) in the file, and its ST02 and version (GS08/ST03). */
  transaction: { index: number; control_number: string; version: string | null };
  /** The CLM segment's position. */
  segment: number;
  /** CLM01. */
  patient_control_number: string;
  /** CLM02, decimal text (null when missing). */
  total_charge: string | null;
  /** CLM05-1 and its qualifier CLM05-2 (B: place of service on 837P; A: the first two digits of the type of bill on 837I). */
  facility_code: string | null;
  facility_qualifier: string | null;
  /** CLM05-3: 1 original, 7 replacement, 8 void ... */
  frequency: string | null;
  /** 837P: CLM05-1 (the claim's place of service). */
  place_of_service: string | null;
  /** 837I: facility code + frequency (`131`). */
  type_of_bill: string | null;
  /** 837I DTP*434 (statement from/to), DTP*435 admission date; 837P has none. */
  statement_from: string | null;
  statement_to: string | null;
  /** REF*F8: the payer's claim number of the claim a frequency 7 or 8 replaces or voids. */
  original_reference: string | null;
  /** REF*G1 of the claim (2300). */
  prior_authorization: string | null;
  billing_provider: ClaimProvider | null;
  /** 2310B (837P) NM1*82 or 2310A (837I) NM1*71 attending; null when the billing provider rendered it. */
  rendering_provider: ClaimProvider | null;
  /** 2310C (837P) / 2310E (837I) NM1*77: where the service was done. */
  service_facility: ClaimProvider | null;
  subscriber: {
    /** SBR01: P primary, S secondary, T tertiary ... */
    payer_responsibility: string | null;
    /** SBR09: the claim filing indicator (MB Medicare Part B, MA Part A, MC Medicaid, CI commercial, 16 Medicare Advantage ...). */
    filing_indicator: string | null;
    /** NM1*IL NM109. */
    member_id: string | null;
    /** NM1*IL NM103, NM104. */
    last_name: string | null;
    first_name: string | null;
    state: string | null;
    zip: string | null;
  };
  /** The patient when not the subscriber (2000C/2010CA), else the subscriber's name. */
  patient: { last_name: string | null; first_name: string | null; birth_date: string | null; state: string | null; zip: string | null };
  /** 2010BB NM1*PR: the payer's name and id (NM109). */
  payer: { name: string | null; id: string | null };
  /** True when 2320 (another payer) loops are present: a secondary or tertiary claim. */
  other_payers: number;
  diagnoses: Diagnosis[];
  lines: Line[];
  /** What the reader found wrong in the claim's structure. */
  issues: ReadIssue[];
}
