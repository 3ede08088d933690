/**
 * Types of bill (UB-04 form locator 4; an 835's CLP08 carries the first two digits on an
 * institutional claim): the facility type and bill classification, e.g. 11 hospital inpatient, 13
 * hospital outpatient. Those whose Part B services a hospital is paid per line under the OPPS: 12
 * (inpatient Part B only), 13 (outpatient), 14 (other: non-patient referenced tests).
 */
const TYPES_OF_BILL: Readonly<Record<string, string>> = {
  '11': 'hospital inpatient (Part A)',
  '12': 'hospital inpatient (Part B only)',
  '13': 'hospital outpatient',
  '14': 'hospital other (Part B: referenced tests)',
  '18': 'hospital swing bed',
  '21': 'skilled nursing facility inpatient (Part A)',
  '22': 'skilled nursing facility inpatient (Part B)',
  '23': 'skilled nursing facility outpatient',
  '32': 'home health (Part B)',
  '34': 'home health (other)',
  '71': 'rural health clinic',
  '72': 'renal dialysis facility',
  '73': 'federally qualified health center',
  '74': 'outpatient rehabilitation facility',
  '75': 'comprehensive outpatient rehabilitation facility',
  '76': 'community mental health center',
  '81': 'hospice (non-hospital based)',
  '82': 'hospice (hospital based)',
  '83': 'ambulatory surgical center',
  '85': 'critical access hospital',
};

/** Types of bill paid per line under the OPPS (a hospital's Part B outpatient services). */
const PAID_UNDER_OPPS = ['12', '13', '14'] as const;
export const OPPS_BILL_TYPES: ReadonlySet<string> = new Set(PAID_UNDER_OPPS.filter((t) => Object.hasOwn(TYPES_OF_BILL, t)));

/** The type of bill's meaning (its first two digits), or undefined for one the service does not list. */
export const typeOfBillMeaning = (code: string): string | undefined => (Object.hasOwn(TYPES_OF_BILL, code.slice(0, 2)) ? TYPES_OF_BILL[code.slice(0, 2)] : undefined);
