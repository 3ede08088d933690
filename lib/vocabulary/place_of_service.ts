/**
 * Places of service (CMS's Place of Service Code Set) the service reads, each code once with its
 * meaning and what it means to each concern:
 *
 * - `facility_rate`: the physician fee schedule pays the facility practice-expense RVUs there
 *   (Medicare Claims Processing Manual ch. 12 section 20.4.2, extended by the CY2024 PFS final rule
 *   for POS 02); every other code takes the non-facility rate;
 * - `hospital`: a hospital setting, where a technical component or a facility's own service is the
 *   hospital's, not the physician's (inpatient, outpatient, emergency, psychiatric, rehabilitation);
 * - `hospital_outpatient`: a hospital outpatient department, paid under the OPPS (on and off
 *   campus, the emergency department).
 */
export interface PlaceOfService {
  meaning: string;
  facility_rate: boolean;
  hospital: boolean;
  hospital_outpatient: boolean;
}

const pos = (meaning: string, o: Partial<Omit<PlaceOfService, 'meaning'>> = {}): PlaceOfService => ({ meaning, facility_rate: false, hospital: false, hospital_outpatient: false, ...o });

export const PLACES_OF_SERVICE: Readonly<Record<string, PlaceOfService>> = {
  '02': pos('telehealth provided other than in the patient\'s home', { facility_rate: true }),
  '10': pos('telehealth provided in the patient\'s home'),
  '11': pos('office'),
  '12': pos('home'),
  '19': pos('off campus-outpatient hospital', { facility_rate: true, hospital: true, hospital_outpatient: true }),
  '20': pos('urgent care facility'),
  '21': pos('inpatient hospital', { facility_rate: true, hospital: true }),
  '22': pos('on campus-outpatient hospital', { facility_rate: true, hospital: true, hospital_outpatient: true }),
  '23': pos('emergency room - hospital', { facility_rate: true, hospital: true, hospital_outpatient: true }),
  '24': pos('ambulatory surgical center', { facility_rate: true }),
  '26': pos('military treatment facility', { facility_rate: true }),
  '31': pos('skilled nursing facility', { facility_rate: true }),
  '34': pos('hospice', { facility_rate: true }),
  '41': pos('ambulance - land', { facility_rate: true }),
  '42': pos('ambulance - air or water', { facility_rate: true }),
  '49': pos('independent clinic'),
  '50': pos('federally qualified health center'),
  '51': pos('inpatient psychiatric facility', { facility_rate: true, hospital: true }),
  '52': pos('psychiatric facility - partial hospitalization', { facility_rate: true, hospital: true }),
  '53': pos('community mental health center', { facility_rate: true }),
  '56': pos('psychiatric residential treatment center', { facility_rate: true }),
  '61': pos('comprehensive inpatient rehabilitation facility', { facility_rate: true, hospital: true }),
  '65': pos('end-stage renal disease treatment facility'),
  '71': pos('public health clinic'),
  '72': pos('rural health clinic'),
  '81': pos('independent laboratory'),
  '99': pos('other place of service'),
};

const where = (flag: keyof Omit<PlaceOfService, 'meaning'>): ReadonlySet<string> => new Set(Object.entries(PLACES_OF_SERVICE).filter(([, p]) => p[flag]).map(([code]) => code));

/** Paid at the physician fee schedule's facility rate. */
export const FACILITY_RATE_POS = where('facility_rate');
/** Hospital settings (a hospital's own service, not the physician's office). */
export const HOSPITAL_POS = where('hospital');
/** Hospital outpatient departments, paid under the OPPS. */
export const HOSPITAL_OUTPATIENT_POS = where('hospital_outpatient');
