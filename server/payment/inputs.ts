import type { z } from 'zod';
import type { YearFigures } from '../../datasets/medicare_yearly_figures/queries.js';
import type { PolicyRule } from '../policies/schemas.js';
import type { AnesthesiaInput } from './rules/anesthesia.js';
import type { CostSharingTerms } from './rules/rule.js';
import type { AscSchema, CostSharingSchema, DmeSchema, FacilityBlockSchema, LabSchema, OutpatientSchema, PaymentAdjustmentSchema, PaymentCompositionSchema, PhysicianSchema } from './schemas.js';

/**
 * What a payment composition reads and answers, declared once: the inputs the service gathers
 * (`PaymentInputs`) and the answer's blocks, each the output of its schema in `schemas.ts`.
 */

/** PE setting: `facility` or `non_facility` PE-RVU, and what decided it. */
export interface PeSetting {
  facility: boolean;
  /** `place_of_service`, `facility_type`, `use_facility_rate` or `default`. */
  decided_by: 'place_of_service' | 'facility_type' | 'use_facility_rate' | 'default';
}

/** The RVU row fields composition needs (a PPRRVU row). */
export interface RvuInput {
  /** The code whose row this is (a PC/TC indicator 4 code at a hospital is priced from its professional code). */
  hcpcs?: string;
  modifier: string;
  status_code: string;
  work_rvu: number | null;
  non_fac_pe_rvu: number | null;
  facility_pe_rvu: number | null;
  mp_rvu: number | null;
  non_fac_na_indicator: string;
  facility_na_indicator: string;
  /** PC/TC indicator (RVU25D.pdf): 1 global with -26/TC rows, 3 technical only, 5 incident to, ... */
  pctc_indicator: string;
  /** Payment-policy indicators of the RVU file (MULT PROC, BILAT SURG, ASST SURG, CO-SURG, TEAM SURG). */
  mult_proc: string;
  bilat_surg: string;
  asst_surg: string;
  co_surg: string;
  team_surg: string;
  year: number;
  quarter: number;
  /** Where the row came from, e.g. `PPRRVU2025_Oct.csv (mpfs_rvu 2025D)`. */
  source: string;
}

/** The indicators the payment-policy rules read. */
export type PolicyIndicators = Pick<RvuInput, 'mult_proc' | 'bilat_surg' | 'asst_surg' | 'co_surg' | 'team_surg'>;

/** GPCI inputs plus the locality they belong to. */
export interface GpciInput {
  locality: string;
  pw_gpci: number;
  pe_gpci: number;
  mp_gpci: number;
}

/** A DMEPOS fee row's two amounts for one state (null where CMS prints 0.00 = none published). */
export interface DmeRates {
  non_rural_rate: number | null;
  rural_rate: number | null;
}

/** The facility profile resolved from reference data (spec "facility" block). */
export type FacilityBlock = z.output<typeof FacilityBlockSchema>;

/** One adjustment of an amount by a payment rule, as the answer lists it. */
export type Adjustment = z.output<typeof PaymentAdjustmentSchema>;

/** Everything composition needs, already looked up. Null inputs make their block absent. */
export interface PaymentInputs {
  code: string;
  ccn: string | null;
  date_of_service: string;
  qpp: boolean;
  pe: PeSetting;
  /** Null when the code has no payable RVU row (the physician block is then absent). */
  rvu: RvuInput | null;
  gpci: GpciInput;
  /** Only with a CCN. */
  facility: FacilityBlock | null;
  /** `informational`: the facility is not paid under the OPPS; the block is shown, not summed. */
  opps: {
    payment_rate: number;
    apc_code: string | null;
    status_indicator: string;
    relative_weight: number | null;
    wage_index: number;
    informational: boolean;
    /** Addendum B copayments: national unadjusted, minimum unadjusted (20%), IRA-adjusted (already final). */
    national_unadjusted_copayment?: number | null;
    minimum_unadjusted_copayment?: number | null;
    adjusted_copayment?: number | null;
    /** The facility's payment system's adjustments of the amount, not of the copayment (a rural emergency hospital's 105%). */
    adjustments?: readonly Adjustment[];
  } | null;
  lab: { rate: number; indicator: string } | null;
  dme: { row: DmeRates; state: string; is_rural: boolean } | null;
  /** The conversion factor of the date of service's year (exact text) and why it was chosen. */
  cf: { value: string; source: string };
  /** The service year's Medicare figures (`medicare_yearly_figures`: deductibles, coinsurance, the preventive list); null when no document of the year is loaded. */
  figures: YearFigures | null;
  /** The OPPS cap of the code, modifier and locality for the setting (DRA 2005), when one applies. */
  opps_cap: { amount: number; version: string } | null;
  /** Medicare coverage rules for the code (`policyRulesFor`), carried into the composition as they are. */
  policy_rules: PolicyRule[];
  /** Payment-policy modifiers of the request (50, 51, 62, 66, 80, 81, 82, AS), applied to the physician amount. */
  policy_modifiers?: readonly string[];
  /** Beneficiary cost sharing: the service's year (its deductibles), whether the Part B deductible is met, and a payment rule's terms for the line. */
  cost_sharing?: { year: number; deductible_met: boolean; terms?: CostSharingTerms | null };
  /** An anesthesia service (PFS status J) with its minutes, base units and the locality's anesthesia factor. */
  anesthesia?: AnesthesiaInput | null;
  /** A critical access hospital billing professional services under Method II: 115% (42 CFR 413.70(b)(3)). */
  cah_method_ii?: boolean;
  /** Off-campus provider-based department modifiers of the request (PN, PO), applied to the OPPS amount. */
  opps_modifiers?: readonly string[];
  /** At place of service 24: the code's Addendum AA row (null: not on the ASC list) and the wage index of the ASC's CBSA (`asc_payment` rule). */
  asc?: AscInput | null;
  /** Notes of rules applied while gathering the inputs (PC/TC row choice, ...), each citing its source. */
  calculation?: readonly string[];
}

/** Spec blocks and the composition, as declared once in `schemas.ts`. */
export type PhysicianBlock = z.output<typeof PhysicianSchema>;
export type OutpatientBlock = z.output<typeof OutpatientSchema>;
export type LabBlock = z.output<typeof LabSchema>;
export type DmeBlock = z.output<typeof DmeSchema>;
export type CostSharingBlock = z.output<typeof CostSharingSchema>;
export type AscBlock = z.output<typeof AscSchema>;

/** What the ASC block is computed from: the release, the code's row (null: not on the list) and the wage index of the CBSA, if known. */
export interface AscInput {
  release: string;
  row: { payment_indicator: string; payment_weight: number | null; payment_rate: number | null; multiple_procedure_discount: boolean } | null;
  cbsa: string | null;
  wage_index: number | null;
}
/** The spec's payment composition without `reliability` (the route adds it). */
export type Composition = Omit<z.output<typeof PaymentCompositionSchema>, 'reliability'>;

/** The locality of national amounts (every GPCI 1.000): no ccn and no locality given. */
export const NATIONAL_LOCALITY = 'national';
