/**
 * The qualifiers of an 835's claim and line REF, AMT and QTY segments (X12 835 TR3,
 * 005010X221A1, loops 2100 and 2110), each with its TR3 name: what an identifier, amount or
 * quantity is, so the explanation can say so.
 */

/** The rendering provider's other identifiers, at claim and line level. */
const PROVIDER_REF: Readonly<Record<string, string>> = {
  '0B': 'state license number',
  '1A': 'Blue Cross provider number',
  '1B': 'Blue Shield provider number',
  '1C': 'Medicare provider number',
  '1D': 'Medicaid provider number',
  '1G': 'provider UPIN number',
  '1H': 'CHAMPUS identification number',
  '1J': 'facility id number',
  D3: 'National Council for Prescription Drug Programs pharmacy number',
  G2: 'provider commercial number',
};

/** Claim REF qualifiers (loop 2100) by their TR3 names. */
export const CLAIM_REF: Readonly<Record<string, string>> = {
  '1L': 'group or policy number',
  '1W': 'member identification number',
  '28': 'employee identification number',
  '6P': 'group number',
  '9A': 'repriced claim reference number',
  '9C': 'adjusted repriced claim reference number',
  A6: 'employee identification number',
  BB: 'authorization number',
  CE: 'class of contract code',
  EA: 'medical record identification number',
  F8: 'original reference number',
  G1: 'prior authorization number',
  G3: 'predetermination of benefits identification number',
  IG: 'insurance policy number',
  SY: 'social security number',
  ...PROVIDER_REF,
  LU: 'location number',
};

/** Line REF qualifiers (loop 2110). */
export const LINE_REF: Readonly<Record<string, string>> = {
  '1S': 'ambulatory patient group (APG) number',
  APC: 'ambulatory payment classification',
  BB: 'authorization number',
  E9: 'attachment code',
  G1: 'prior authorization number',
  G3: 'predetermination of benefits identification number',
  LU: 'location number',
  RB: 'rate code number',
  '6R': 'line item control number',
  '0K': 'policy form identifying number',
  ...PROVIDER_REF,
  HPI: 'Centers for Medicare and Medicaid Services National Provider Identifier',
  SY: 'social security number',
  TJ: 'federal taxpayer identification number',
};

const FEDERAL_MANDATES: Record<string, string> = {
  ZK: 'federal Medicare or Medicaid payment mandate, category 1',
  ZL: 'federal Medicare or Medicaid payment mandate, category 2',
  ZM: 'federal Medicare or Medicaid payment mandate, category 3',
  ZN: 'federal Medicare or Medicaid payment mandate, category 4',
  ZO: 'federal Medicare or Medicaid payment mandate, category 5',
};

export const CLAIM_AMT: Readonly<Record<string, string>> = {
  AU: 'coverage amount',
  D8: 'discount amount',
  DY: 'per day limit',
  F5: 'patient amount paid',
  I: 'interest',
  NL: 'negative ledger balance',
  T: 'tax',
  T2: 'total claim before taxes',
  ...FEDERAL_MANDATES,
};

export const LINE_AMT: Readonly<Record<string, string>> = { B6: 'allowed - actual', KH: 'deduction amount (late filing reduction)', T: 'tax', T2: 'total claim before taxes', ...FEDERAL_MANDATES };

export const CLAIM_QTY: Readonly<Record<string, string>> = {
  CA: 'covered - actual',
  CD: 'co-insured - actual',
  LA: 'life-time reserve - actual',
  LE: 'life-time reserve - estimated',
  NE: 'non-covered - estimated',
  NR: 'not replaced blood units',
  OU: 'outlier days',
  PS: 'prescription',
  VS: 'visits',
  ...FEDERAL_MANDATES,
};


/** NM1 entity codes of loop 2100 the explanation keeps (TT, the crossover carrier, is read apart). */
export const CLAIM_NM1: Readonly<Record<string, string>> = {
  QC: 'patient',
  IL: 'insured or subscriber',
  '74': 'corrected insured',
  '82': 'rendering provider',
};
