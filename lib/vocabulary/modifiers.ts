import { LIABILITY_MODIFIERS } from './liability.js';

/**
 * HCPCS/CPT modifiers the service reads, each code once with its meaning and what it means to each
 * concern that acts on it:
 *
 * - `rvu_row`: the physician fee schedule prints its own RVU row for the code with this modifier
 *   (26 professional component, TC technical component, 53 discontinued procedure);
 * - `payment`: a payment rule reads it (its id in `server/payment/rules`: multiple procedure,
 *   bilateral, assistant at surgery, co-surgeon, reduced services, modifier PT, ACP with 33 ...);
 * - `anesthesia`: the anesthesia payment's medical-direction percent (AA, QZ 100; QK, QX, QY 50) or
 *   `AD` (medical supervision: three base units, no time units), Claims Processing Manual ch. 12
 *   section 50;
 * - `ncci`: how it bypasses an indicator-1 NCCI PTP edit (NCCI Policy Manual ch. I section E):
 *   `distinct` (59, XE, XS, XP, XU, on either line), `anatomic` (only when the lines name different
 *   sites), `global_surgery` (58, 78, 79), `em` (24, 25, 57: on the E/M line only), `other`
 *   (27, 91);
 * - `liability`: Medicare's liability modifiers (GA, GZ, GY, GX; `liability.ts`);
 * - `fee_lookup`: the lab or DME fee lookups read it (QW CLIA-waived test; NU new, RR rental, UE
 *   used equipment);
 * - `professional_only`: the line bills a professional service only, so the hospital's OPPS amount
 *   is never part of it: the professional `component` (26), an `assistant` at surgery (80, 81, 82,
 *   AS) or `co_surgery` (62 co-surgeons, 66 team surgery).
 */
export type NcciBypass = 'distinct' | 'anatomic' | 'global_surgery' | 'em' | 'other';

export interface Modifier {
  meaning: string;
  rvu_row?: true;
  payment?: string;
  anesthesia?: number | 'AD';
  ncci?: NcciBypass;
  liability?: true;
  fee_lookup?: 'lab' | 'dme';
  professional_only?: 'component' | 'assistant' | 'co_surgery';
}

const anatomic = (meaning: string): Modifier => ({ meaning, ncci: 'anatomic' });

export const MODIFIERS: Readonly<Record<string, Modifier>> = {
  '22': { meaning: 'increased procedural services' },
  '24': { meaning: 'unrelated E/M service by the same physician during a postoperative period', ncci: 'em' },
  '25': { meaning: 'significant, separately identifiable E/M service on the day of a procedure', ncci: 'em' },
  '26': { meaning: 'professional component', rvu_row: true, professional_only: 'component' },
  '27': { meaning: 'multiple outpatient hospital E/M encounters on the same date', ncci: 'other' },
  '33': { meaning: 'preventive service (cost sharing waived where the statute allows)', payment: 'advance_care_planning_with_awv' },
  '50': { meaning: 'bilateral procedure', payment: 'bilateral' },
  '51': { meaning: 'multiple procedures', payment: 'multiple_procedure' },
  '52': { meaning: 'reduced services', payment: 'reduced_services' },
  '53': { meaning: 'discontinued procedure', rvu_row: true, payment: 'reduced_services' },
  '57': { meaning: 'decision for surgery', ncci: 'em' },
  '58': { meaning: 'staged or related procedure during the postoperative period', ncci: 'global_surgery' },
  '59': { meaning: 'distinct procedural service', ncci: 'distinct' },
  '62': { meaning: 'co-surgeons', payment: 'co_surgeon', professional_only: 'co_surgery' },
  '66': { meaning: 'team surgery', professional_only: 'co_surgery' },
  '78': { meaning: 'unplanned return to the operating room for a related procedure during the postoperative period', ncci: 'global_surgery' },
  '79': { meaning: 'unrelated procedure during the postoperative period', ncci: 'global_surgery' },
  '80': { meaning: 'assistant at surgery', payment: 'assistant_at_surgery', professional_only: 'assistant' },
  '81': { meaning: 'minimum assistant at surgery', payment: 'assistant_at_surgery', professional_only: 'assistant' },
  '82': { meaning: 'assistant at surgery when no qualified resident is available', payment: 'assistant_at_surgery', professional_only: 'assistant' },
  '91': { meaning: 'repeat clinical diagnostic laboratory test', ncci: 'other' },
  AA: { meaning: 'anesthesia services performed personally by the anesthesiologist', anesthesia: 100 },
  AD: { meaning: 'medical supervision by a physician: more than four concurrent anesthesia procedures', anesthesia: 'AD' },
  AS: { meaning: 'non-physician assistant at surgery', payment: 'assistant_at_surgery', professional_only: 'assistant' },
  E1: anatomic('upper left, eyelid'),
  E2: anatomic('lower left, eyelid'),
  E3: anatomic('upper right, eyelid'),
  E4: anatomic('lower right, eyelid'),
  FA: anatomic('left hand, thumb'),
  F1: anatomic('left hand, second digit'),
  F2: anatomic('left hand, third digit'),
  F3: anatomic('left hand, fourth digit'),
  F4: anatomic('left hand, fifth digit'),
  F5: anatomic('right hand, thumb'),
  F6: anatomic('right hand, second digit'),
  F7: anatomic('right hand, third digit'),
  F8: anatomic('right hand, fourth digit'),
  F9: anatomic('right hand, fifth digit'),
  LC: anatomic('left circumflex coronary artery'),
  LD: anatomic('left anterior descending coronary artery'),
  LM: anatomic('left main coronary artery'),
  LT: anatomic('left side'),
  NU: { meaning: 'new equipment', fee_lookup: 'dme' },
  PT: { meaning: 'colorectal cancer screening test converted to a diagnostic or therapeutic service', payment: 'colorectal_screening_pt' },
  QK: { meaning: 'medical direction of two, three or four concurrent anesthesia procedures', anesthesia: 50 },
  QW: { meaning: 'CLIA-waived test', fee_lookup: 'lab' },
  QX: { meaning: 'CRNA service with medical direction by a physician', anesthesia: 50 },
  QY: { meaning: 'medical direction of one CRNA by an anesthesiologist', anesthesia: 50 },
  QZ: { meaning: 'CRNA service without medical direction by a physician', anesthesia: 100 },
  RC: anatomic('right coronary artery'),
  RI: anatomic('ramus intermedius coronary artery'),
  RR: { meaning: 'rental', fee_lookup: 'dme' },
  RT: anatomic('right side'),
  TA: anatomic('left foot, great toe'),
  T1: anatomic('left foot, second digit'),
  T2: anatomic('left foot, third digit'),
  T3: anatomic('left foot, fourth digit'),
  T4: anatomic('left foot, fifth digit'),
  T5: anatomic('right foot, great toe'),
  T6: anatomic('right foot, second digit'),
  T7: anatomic('right foot, third digit'),
  T8: anatomic('right foot, fourth digit'),
  T9: anatomic('right foot, fifth digit'),
  TC: { meaning: 'technical component', rvu_row: true },
  UE: { meaning: 'used durable medical equipment', fee_lookup: 'dme' },
  XE: { meaning: 'separate encounter: distinct because it occurred during a separate encounter', ncci: 'distinct' },
  XP: { meaning: 'separate practitioner: distinct because it was performed by a different practitioner', ncci: 'distinct' },
  XS: { meaning: 'separate structure: distinct because it was performed on a separate organ or structure', ncci: 'distinct' },
  XU: { meaning: 'unusual non-overlapping service: distinct because it does not overlap the usual components of the main service', ncci: 'distinct' },
  ...Object.fromEntries(Object.entries(LIABILITY_MODIFIERS).map(([code, meaning]) => [code, { meaning, liability: true as const }])),
};

/** The codes whose row has `concern` (set to `value`, when given). */
export function modifiersWhere<K extends keyof Omit<Modifier, 'meaning'>>(concern: K, value?: Modifier[K]): ReadonlySet<string> {
  return new Set(Object.entries(MODIFIERS).filter(([, m]) => m[concern] !== undefined && (value === undefined || m[concern] === value)).map(([code]) => code));
}

