import { describe, expect, it } from 'vitest';
import { Trace } from '../../trace.js';
import type { PaymentInputs, RvuInput } from '../inputs.js';
import { anesthesia, anesthesiaAllowed } from './anesthesia.js';

/*
 * Medicare Claims Processing Manual ch. 12 section 50 and 42 CFR 414.46: (base units + minutes / 15
 * to one decimal place) x the locality's anesthesia conversion factor. 00100 (5 base units) in
 * Manhattan with the CY2025 factor 22.76:
 *   60 minutes: (5 + 4.0) x 22.76 = $204.84; QK (medical direction of two to four cases) 50%: $102.42;
 *   47 minutes: 47 / 15 = 3.13 -> 3.1 time units, (5 + 3.1) x 22.76 = 184.356 -> $184.36;
 *   AD (medical supervision): 3 base units, no time units: 3 x 22.76 = $68.28.
 */
const rvu: RvuInput = { hcpcs: '00100', modifier: '', status_code: 'J', work_rvu: 0, non_fac_pe_rvu: 0, facility_pe_rvu: 0, mp_rvu: 0, non_fac_na_indicator: '', facility_na_indicator: '', pctc_indicator: '9', mult_proc: '9', bilat_surg: '9', asst_surg: '9', co_surg: '9', team_surg: '9', year: 2025, quarter: 4, source: 'PPRRVU2025_Oct.csv (mpfs_rvu 2025D)' };
const inputs = (modifier: string | null): PaymentInputs => ({
  code: '00100',
  ccn: null,
  date_of_service: '2025-06-02',
  qpp: false,
  pe: { facility: true, decided_by: 'place_of_service' },
  rvu,
  gpci: { locality: '1320201', pw_gpci: 1.064, pe_gpci: 1.162, mp_gpci: 1.586 },
  facility: null,
  opps: null,
  lab: null,
  dme: null,
  cf: { value: '32.3465', source: 'test' },
  figures: null,
  opps_cap: null,
  policy_rules: [],
  anesthesia: { base_units: 5, minutes: 60, cf: '22.76', cf_source: 'ANES2025', base_units_source: 'test', modifier },
});

describe('anesthesia: base and time units times the anesthesia conversion factor', () => {
  it('prices 00100 for 60 minutes in Manhattan $204.84, with QK $102.42, 47 minutes $184.36, AD $68.28', () => {
    const a = { base_units: 5, minutes: 60, cf: '22.76', modifier: null };
    expect(anesthesiaAllowed(a)).toMatchObject({ base_units: 5, percent: 100, allowed: 204.84 });
    expect(anesthesiaAllowed(a).time_units.toNumber()).toBe(4);
    expect(anesthesiaAllowed({ ...a, modifier: 'QK' })).toMatchObject({ percent: 50, before_direction: 204.84, allowed: 102.42 });
    expect(anesthesiaAllowed({ ...a, minutes: 47 }).allowed).toBe(184.36);
    expect(anesthesiaAllowed({ ...a, modifier: 'AD' })).toMatchObject({ base_units: 3, allowed: 68.28 });
  });

  it('prices the physician block of a status J code in place of rule 1, the medical direction as an adjustment', () => {
    const notes = { calculation: [] as string[], warnings: [] as string[] };
    const block = anesthesia.physicianFormula!(inputs('QK'), rvu, notes);
    expect(block).toMatchObject({ allowed_phy_payment: 102.42, fee_schedule_amount: 204.84, conversion_factor: 22.76, adjustments: [{ modifier: 'QK', rule: 'anesthesia_medical_direction', percent: 50 }], anesthesia: { minutes: 60, base_units: 5, time_units: 4 } });
    expect(notes.calculation).toEqual([expect.stringMatching(/^anesthesia: \(5 base units \+ 4\.0 time units \(60 minutes \/ 15\)\) x 22\.76 x 50% \(modifier QK\) \(Medicare Claims Processing Manual ch\. 12 section 50/)]);
  });

  it('leaves a code that is not status J, or has no anesthesia inputs, to rule 1', async () => {
    expect(anesthesia.physicianFormula!(inputs(null), { ...rvu, status_code: 'A' }, { calculation: [], warnings: [] })).toBeUndefined();
    expect(anesthesia.physicianFormula!({ ...inputs(null), anesthesia: null }, rvu, { calculation: [], warnings: [] })).toBeUndefined();
    const trace = new Trace(null, () => new Date('2026-03-02T00:00:00Z'));
    const gathered = await anesthesia.gather!({ snapshot: null as never, trace, code: '99213', modifiers: [], facility: null, query: {}, pe: { facility: false, decided_by: 'default' }, row: null, locality: 'national', year: 2026 });
    expect(gathered).toEqual({ anesthesia: null });
  });
});
