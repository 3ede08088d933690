import { Dec } from '../../lib/decimal.js';
import { describe, expect, it } from 'vitest';
import {
  choosePeSetting,
  applyPolicyModifiers,
  composePayment,
  costSharing,
  oppsCopayment,
  dmeAllowed,
  isFacilityPos,
  labAllowed,
  outpatientFacilityAllowed,
  physicianAllowed,
  sumCents,
  type PaymentInputs,
} from './calculate.js';
import { conversionFactorOf } from './rvu.js';
import type { RvuRow } from '../../datasets/mpfs_rvu/queries.js';
import { Trace } from '../trace.js';
import { figuresOf } from '../../testing/payment.js';

// The CY2026 factors (PFS final rule CMS-1832-F) and the CY2025 and CY2026 Part B figures, as
// seeds/medicare_yearly_figures/2025.yaml and 2026.yaml give them to the calculators.
const CF_QPP = '33.5675';
const CF_NON_QPP = '33.4009';
const CY2026 = figuresOf(2026, { conversion_factor_qpp: CF_QPP, conversion_factor_non_qpp: CF_NON_QPP, part_b_deductible: '283', inpatient_deductible: '1736', part_b_coinsurance_percent: '20' });
const CY2025 = figuresOf(2025, { part_b_deductible: '257', inpatient_deductible: '1676', part_b_coinsurance_percent: '20' });

// 99213 in PPRRVU2025_Oct.csv (line 12807): work 1.30, non-facility PE 1.35, facility PE 0.57, MP 0.10.
const RVU_99213 = { work: 1.3, nonFacPe: 1.35, facPe: 0.57, mp: 0.1 };
// GPCI2026.csv (line 78): 13202,NY,01,MANHATTAN,1.064,1.162,1.586
const MANHATTAN = { pw_gpci: 1.064, pe_gpci: 1.162, mp_gpci: 1.586 };

describe('physicianAllowed (rule 1)', () => {
  it('prices 99213 non-facility in Manhattan at the non-QPP CF 33.4009: $103.89', () => {
    // work 1.30 x 1.064 = 1.38320; PE 1.35 x 1.162 = 1.56870; MP 0.10 x 1.586 = 0.15860
    // total 3.11050 x 33.4009 = 103.893499450 -> $103.89
    const a = physicianAllowed({ work_rvu: RVU_99213.work, pe_rvu: RVU_99213.nonFacPe, mp_rvu: RVU_99213.mp }, MANHATTAN, CF_NON_QPP);
    expect(a.work_rvu_adjusted.toNumber()).toBe(1.3832);
    expect(a.pe_rvu_adjusted.toNumber()).toBe(1.5687);
    expect(a.mp_rvu_adjusted.toNumber()).toBe(0.1586);
    expect(a.total_adjusted_rvu.toNumber()).toBe(3.1105);
    expect(a.exact.toString()).toBe('103.893499450');
    expect(a.allowed).toBe(103.89);
  });

  it('prices 99213 non-facility in Manhattan at the QPP CF 33.5675: $104.41', () => {
    // 3.11050 x 33.5675 = 104.411708750 -> $104.41
    const a = physicianAllowed({ work_rvu: 1.3, pe_rvu: 1.35, mp_rvu: 0.1 }, MANHATTAN, CF_QPP);
    expect(a.exact.toString()).toBe('104.411708750');
    expect(a.allowed).toBe(104.41);
  });

  it('prices 99213 facility in Manhattan: $73.62 non-QPP, $73.99 QPP', () => {
    // PE 0.57 x 1.162 = 0.66234; total 1.38320 + 0.66234 + 0.15860 = 2.20414
    // x 33.4009 = 73.620259726 -> $73.62; x 33.5675 = 73.987469450 -> $73.99
    const rvu = { work_rvu: 1.3, pe_rvu: RVU_99213.facPe, mp_rvu: 0.1 };
    const non = physicianAllowed(rvu, MANHATTAN, CF_NON_QPP);
    expect(non.total_adjusted_rvu.toNumber()).toBe(2.20414);
    expect(non.exact.toString()).toBe('73.620259726');
    expect(non.allowed).toBe(73.62);
    const q = physicianAllowed(rvu, MANHATTAN, CF_QPP);
    expect(q.exact.toString()).toBe('73.987469450');
    expect(q.allowed).toBe(73.99);
  });

  it('rounds a half cent up (half away from zero) where binary floats round down', () => {
    // 1.00 x 1 x 1.005 = 1.005 exactly -> $1.01; in floats 1.005 * 100 = 100.49999999999999 -> 1.00
    const a = physicianAllowed({ work_rvu: '1.00', pe_rvu: 0, mp_rvu: 0 }, { pw_gpci: 1, pe_gpci: 1, mp_gpci: 1 }, '1.005');
    expect(a.exact.toString()).toBe('1.00500');
    expect(a.allowed).toBe(1.01);
    expect(Math.round(1.005 * 100) / 100).toBe(1); // the float answer this avoids
  });

  it('rounds just below a half cent down', () => {
    // 0.01 x 1.000 x 33.4009 = 0.334009 -> $0.33; 0.15 x 1 x 33.4009 = 5.010135 -> $5.01
    expect(physicianAllowed({ work_rvu: 0.01, pe_rvu: 0, mp_rvu: 0 }, { pw_gpci: 1, pe_gpci: 1, mp_gpci: 1 }, CF_NON_QPP).allowed).toBe(0.33);
    expect(physicianAllowed({ work_rvu: 0.15, pe_rvu: 0, mp_rvu: 0 }, { pw_gpci: 1, pe_gpci: 1, mp_gpci: 1 }, CF_NON_QPP).allowed).toBe(5.01);
  });
});

describe('outpatientFacilityAllowed (rule 2)', () => {
  it('wage-adjusts 60% of the OPPS rate: $94.85 at wage index 1.3456 is $114.52', () => {
    // 94.85 x 0.6 = 56.91; x 1.3456 = 76.578096; 94.85 x 0.4 = 37.94; sum 114.518096 -> $114.52
    const o = outpatientFacilityAllowed(94.85, 1.3456);
    expect(o.exact.toNumber()).toBe(114.518096);
    expect(o.allowed).toBe(114.52);
    expect([o.labor_share, o.non_labor_share]).toEqual([0.6, 0.4]);
  });

  it('leaves the rate unchanged at wage index 1.0000 and honours another labor share', () => {
    expect(outpatientFacilityAllowed(145.53, '1.0000').allowed).toBe(145.53);
    // 100 x 0.5 x 0.8 + 100 x 0.5 = 90.00
    const o = outpatientFacilityAllowed(100, 0.8, 0.5);
    expect(o.allowed).toBe(90);
    expect(o.non_labor_share).toBe(0.5);
  });
});

describe('labAllowed and dmeAllowed (rules 3 and 4)', () => {
  it('pays the flat national lab limit', () => {
    // PUF_CLFS_CY2026_Q3V1.csv: 80053 RATE 00010.56
    expect(labAllowed(10.56)).toBe(10.56);
  });

  it('chooses the rural DME fee for a rural facility and the non-rural fee otherwise', () => {
    // DMEPOS25_APR.csv: A4636 NU, AL (NR) 3.86, AL (R) 4.19
    const row = { non_rural_rate: 3.86, rural_rate: 4.19 };
    expect(dmeAllowed(row, true)).toEqual({ rate: 4.19, rate_used: 'rural', allowed: 4.19 });
    expect(dmeAllowed(row, false)).toEqual({ rate: 3.86, rate_used: 'non_rural', allowed: 3.86 });
  });

  it('falls back to the non-rural fee when no rural fee is published, and to nothing when neither is', () => {
    // DMEPOS25_APR.csv: E0110 NU, AL (NR) 92.15, AL (R) 0.00 (stored null)
    expect(dmeAllowed({ non_rural_rate: 92.15, rural_rate: null }, true)).toEqual({ rate: 92.15, rate_used: 'non_rural', allowed: 92.15 });
    expect(dmeAllowed({ non_rural_rate: null, rural_rate: null }, true)).toBeNull();
  });
});

describe('place of service and PE setting', () => {
  it('treats the MPFS facility POS codes as facility and the rest as non-facility', () => {
    for (const pos of ['19', '21', '22', '23', '24', '26', '31', '34', '41', '42', '51', '52', '53', '56', '61', '02']) expect(isFacilityPos(pos)).toBe(true);
    for (const pos of ['11', '12', '10', '20', '49', '50', '65', '81', '99']) expect(isFacilityPos(pos)).toBe(false);
  });

  it('lets place_of_service win over the facility type, which wins over use_facility_rate', () => {
    expect(choosePeSetting({ placeOfService: '11', facilityIsFacilitySetting: true, useFacilityRate: true })).toEqual({ facility: false, decided_by: 'place_of_service' });
    expect(choosePeSetting({ facilityIsFacilitySetting: true, useFacilityRate: false })).toEqual({ facility: true, decided_by: 'facility_type' });
    expect(choosePeSetting({ useFacilityRate: true })).toEqual({ facility: true, decided_by: 'use_facility_rate' });
    expect(choosePeSetting({})).toEqual({ facility: false, decided_by: 'default' });
  });
});

const base: PaymentInputs = {
  code: '99213',
  ccn: null,
  date_of_service: '2026-03-02',
  qpp: false,
  pe: { facility: false, decided_by: 'default' },
  rvu: {
    modifier: '',
    status_code: 'A',
    pctc_indicator: '0',
    work_rvu: 1.3,
    non_fac_pe_rvu: 1.35,
    facility_pe_rvu: 0.57,
    mp_rvu: 0.1,
    non_fac_na_indicator: '',
    facility_na_indicator: '',
    mult_proc: '0',
    bilat_surg: '0',
    asst_surg: '0',
    co_surg: '0',
    team_surg: '0',
    year: 2025,
    quarter: 4,
    source: 'PPRRVU2025_Oct.csv',
  },
  gpci: { locality: '1320201', ...MANHATTAN },
  facility: null,
  opps: null,
  lab: null,
  dme: null,
  cf: { value: CF_NON_QPP, source: 'spec rule 1: CY2026 non-QPP constant' },
  figures: CY2026,
  opps_cap: null,
  policy_rules: [],
};

describe('composePayment', () => {
  it('composes the physician block only and mirrors it at the top level', () => {
    const { composition: c, warnings } = composePayment(base);
    expect(warnings).toEqual([]);
    expect(c.applicable_blocks).toEqual(['physician']);
    expect(c.estimated_payment).toBe(103.89);
    expect(c.conversion_factor).toBe(33.4009);
    expect(c.physician).toMatchObject({ allowed_phy_payment: 103.89, pe_rvu: 1.35, pe_rvu_source: 'non_facility', total_adjusted_rvu: 3.1105, rvu_year: 2025, rvu_quarter: 4 });
    expect([c.work_rvu_adjusted, c.pe_rvu_adjusted, c.mp_rvu_adjusted, c.total_adjusted_rvu]).toEqual([1.3832, 1.5687, 0.1586, 3.1105]);
    expect([c.pw_gpci, c.pe_gpci, c.mp_gpci, c.locality]).toEqual([1.064, 1.162, 1.586, '1320201']);
    expect(c.outpatient_facility).toBeNull();
    expect(c.policy_rules).toEqual([]);
  });

  it('carries the policy rules it is given into the composition unchanged', () => {
    const rule = { code: '99213', doc_id: 'A99001', kind: 'article', pdf_uri: 'https://example.org/a', rule_text: 'x', source_key: 'cms_mcd', discovery_depth: 0, license_kind: 'public', payer_slug: 'medicare_ffs', illustrative: true };
    expect(composePayment({ ...base, policy_rules: [rule] }).composition.policy_rules).toEqual([rule]);
  });

  it('sums every applicable block, each rounded once: physician + OPPS + lab + DME', () => {
    const { composition: c } = composePayment({
      ...base,
      qpp: true,
      cf: { value: CF_QPP, source: 'spec rule 1: CY2026 QPP constant' },
      pe: { facility: true, decided_by: 'facility_type' },
      opps: { payment_rate: 94.85, apc_code: '5521', status_indicator: 'Q3', relative_weight: 1.0376, wage_index: 1.3456, informational: false },
      lab: { rate: 10.56, indicator: 'N' },
      dme: { row: { non_rural_rate: 3.86, rural_rate: 4.19 }, state: 'NY', is_rural: false },
    });
    expect(c.applicable_blocks).toEqual(['physician', 'outpatient_facility', 'lab', 'dme']);
    // 73.99 (99213 facility, QPP) + 114.52 + 10.56 + 3.86 = 202.93
    expect(c.physician?.allowed_phy_payment).toBe(73.99);
    expect(c.estimated_payment).toBe(202.93);
    expect(c.facility_rate).toBe(true);
  });

  it('drops the physician block with a warning for a code not paid on RVUs', () => {
    // PPRRVU2025_Oct.csv: 80053 status X, all RVUs 0.00
    const { composition: c, warnings } = composePayment({ ...base, code: '80053', rvu: { ...base.rvu!, status_code: 'X', work_rvu: 0, non_fac_pe_rvu: 0, facility_pe_rvu: 0, mp_rvu: 0 } });
    expect(c.applicable_blocks).toEqual([]);
    expect(c.physician).toBeNull();
    expect(c.total_adjusted_rvu).toBeNull();
    expect(c.estimated_payment).toBe(0);
    expect(warnings.join(' ')).toMatch(/status X/);
  });

  it('warns when the chosen setting is marked NA but still prices the published PE', () => {
    // PPRRVU2025_Oct.csv: 22551 non-facility NA indicator "NA", PE 18.55 in both settings
    const { warnings } = composePayment({ ...base, code: '22551', rvu: { ...base.rvu!, non_fac_na_indicator: 'NA' } });
    expect(warnings.join(' ')).toMatch(/non-facility PE-RVU of 22551 as NA/);
  });

  it('adds cents exactly', () => {
    expect(sumCents([0.1, 0.2])).toBe(0.3);
    expect(sumCents([])).toBe(0);
  });
});

describe('conversion factor by year and the OPPS cap', () => {
  const row = (o: Partial<RvuRow>): RvuRow => ({ year: 2025, conv_factor: 32.3465, conv_factor_qpp: null, cf_variant: 'all', version: '2025D', ...o }) as RvuRow;

  it("a CY2025 service is paid with the 2025 file's CONV FACTOR, QPP or not (one factor that year)", () => {
    const w = new Trace(null, () => new Date(0));
    expect(conversionFactorOf(row({}), 'PPRRVU2025_Oct.csv (mpfs_rvu 2025D)', 2025, false, CY2025, w)).toEqual({ value: '32.3465', source: 'CONV FACTOR of PPRRVU2025_Oct.csv (mpfs_rvu 2025D) (CY2025 has one factor for QPP and non-QPP)' });
    expect(conversionFactorOf(row({}), 's', 2025, true, CY2025, w)?.value).toBe('32.3465');
    expect(w.warnings).toEqual([]);
  });

  it('CY2026 takes the QPP and non-QPP factors of a merged 2026 file, else the year\'s figures (the spec\'s rule 1)', () => {
    const w = new Trace(null, () => new Date(0));
    const r2026 = row({ year: 2026, conv_factor: 33.4009, conv_factor_qpp: 33.5675, cf_variant: 'QPP+nonQPP' });
    expect(conversionFactorOf(r2026, 's', 2026, true, CY2026, w)?.value).toBe('33.5675');
    expect(conversionFactorOf(r2026, 's', 2026, false, CY2026, w)?.value).toBe('33.4009');
    // Only the non-QPP file loaded: QPP comes from the year's figures and says why.
    expect(conversionFactorOf(row({ year: 2026, conv_factor: 33.4009, cf_variant: 'nonQPP' }), 's', 2026, true, CY2026, w)).toEqual({ value: CF_QPP, source: 'spec rule 1: CY2026 QPP constant; s carries no QPP factor' });
    // Only the 2025 release loaded: 2026 services use the year's figures, not 32.3465.
    expect(conversionFactorOf(row({}), 's', 2026, false, CY2026, w)).toEqual({ value: CF_NON_QPP, source: 'spec rule 1: CY2026 non-QPP constant; no CY2026 RVU release is loaded (RVUs from s)' });
    // A later year's document names itself as the source.
    expect(conversionFactorOf(row({}), 's', 2027, false, figuresOf(2027, { conversion_factor_non_qpp: '34.0001' }), w)).toEqual({ value: '34.0001', source: 'medicare_yearly_figures test: CY2027 non-QPP conversion factor (test figures of CY2027); no CY2027 RVU release is loaded (RVUs from s)' });
    expect(w.warnings).toEqual([]);
  });

  it('another year without its release borrows the loaded factor with a warning', () => {
    const w = new Trace(null, () => new Date(0));
    expect(conversionFactorOf(row({}), 's', 2024, false, null, w)?.value).toBe('32.3465');
    expect(w.warnings).toEqual(['no CY2024 RVU release is loaded: the CY2025 conversion factor 32.3465 of s was used']);
  });

  it('pays the lesser of the PFS amount and the OPPS cap, and reports both', () => {
    const cf = { value: '32.3465', source: 'CONV FACTOR' };
    // 99213 non-facility in Manhattan at 32.3465: 3.1105 x 32.3465 = 100.6138... -> 100.61
    const capped = composePayment({ ...base, cf, opps_cap: { amount: 90.12, version: '2025D' } }).composition;
    expect(capped.physician).toMatchObject({ allowed_phy_payment: 90.12, opps_cap_amount: 90.12, opps_cap_applied: true, conversion_factor: 32.3465 });
    expect(capped.estimated_payment).toBe(90.12);
    const under = composePayment({ ...base, cf, opps_cap: { amount: 150, version: '2025D' } }).composition;
    expect(under.physician).toMatchObject({ allowed_phy_payment: 100.61, opps_cap_amount: 150, opps_cap_applied: false });
    const none = composePayment({ ...base, cf }).composition;
    expect(none.physician).toMatchObject({ opps_cap_amount: null, opps_cap_applied: false, conversion_factor_source: 'CONV FACTOR' });
  });
});

// Payment-policy modifiers, worked from the seed rows of PPRRVU2025_Oct.csv (real rows):
//   20610: work 0.79, PE 1.04 non-fac / 0.44 fac, MP 0.13; MULT PROC 2, BILAT 1, ASST 1, CO 0, TEAM 0.
//   27447: work 19.60, PE 15.30 / 15.30, MP 3.98; MULT PROC 2, BILAT 1, ASST 2, CO 1, TEAM 0.
// Manhattan (GPCI2026 1320201) 1.064 / 1.162 / 1.586, non-QPP CF 33.4009.
describe('applyPolicyModifiers (Claims Processing Manual ch. 12 sections 20.4.3, 40.6-40.8)', () => {
  const ind = (o: Partial<Record<'mult_proc' | 'bilat_surg' | 'asst_surg' | 'co_surg' | 'team_surg', string>>) => ({ mult_proc: '0', bilat_surg: '0', asst_surg: '0', co_surg: '0', team_surg: '0', ...o });
  const pct = (mods: string[], i: ReturnType<typeof ind>) => applyPolicyModifiers('X', mods, i);

  it('50 pays by the bilateral indicator: 1 150%, 3 200%, 0 and 2 100%, 9 not adjusted', () => {
    expect(pct(['50'], ind({ bilat_surg: '1' })).adjustments).toEqual([{ modifier: '50', rule: 'bilateral', indicator: '1', percent: 150, citation: expect.stringContaining('section 40.7') }]);
    expect(pct(['50'], ind({ bilat_surg: '3' })).factor.toNumber()).toBe(2);
    for (const i of ['0', '2']) expect(pct(['50'], ind({ bilat_surg: i })).adjustments[0]!.percent).toBe(100);
    const nine = pct(['50'], ind({ bilat_surg: '9' }));
    expect(nine.adjustments).toEqual([]);
    expect(nine.warnings[0]).toMatch(/bilateral concept does not apply/);
  });

  it('51 halves indicator 2 and leaves the family reductions (3-7) unapplied on a single code, with a warning', () => {
    expect(pct(['51'], ind({ mult_proc: '2' })).adjustments[0]).toMatchObject({ rule: 'multiple_procedure', percent: 50 });
    const endo = pct(['51'], ind({ mult_proc: '3' }));
    expect(endo.adjustments).toEqual([]);
    expect(endo.warnings[0]).toMatch(/indicator 3, the endoscopy .* not applied to a single code/);
    expect(pct(['51'], ind({ mult_proc: '4' })).warnings[0]).toMatch(/diagnostic imaging/);
  });

  it('62 pays 62.5% for co-surgeon indicators 1 and 2 and is not payable with 0', () => {
    expect(pct(['62'], ind({ co_surg: '1' })).factor.toNumber()).toBe(0.625);
    expect(pct(['62'], ind({ co_surg: '2' })).adjustments[0]!.percent).toBe(62.5);
    expect(pct(['62'], ind({ co_surg: '0' })).not_priced[0]).toMatch(/co-surgeons not permitted/);
  });

  it('80/81/82 pay 16% and AS 13.6% (85% of 16%) with indicator 2; 0 needs documentation, 1 is never paid', () => {
    for (const m of ['80', '81', '82']) expect(pct([m], ind({ asst_surg: '2' })).adjustments[0]).toMatchObject({ modifier: m, rule: 'assistant_at_surgery', percent: 16 });
    expect(pct(['AS'], ind({ asst_surg: '2' })).factor.toNumber()).toBe(0.136);
    expect(pct(['80'], ind({ asst_surg: '0' })).not_priced[0]).toMatch(/only with documentation of medical necessity/);
    expect(pct(['80'], ind({ asst_surg: '1' })).not_priced[0]).toMatch(/cannot be paid/);
  });

  it('66 is priced by report (not priced) whatever the indicator', () => {
    expect(pct(['66'], ind({ team_surg: '2' })).not_priced[0]).toMatch(/by report/);
    expect(pct(['66'], ind({ team_surg: '0' })).not_priced[0]).toMatch(/team surgeons not permitted/);
  });

  it('composes the percents: an assistant on a second procedure is 16% of 50% (8%)', () => {
    const r = pct(['80', '51'], ind({ asst_surg: '2', mult_proc: '2' }));
    expect(r.adjustments.map((a) => a.modifier)).toEqual(['51', '80']);
    expect(r.factor.toNumber()).toBe(0.08);
  });
});

describe('composePayment with payment-policy modifiers', () => {
  const r20610 = { ...base.rvu!, work_rvu: 0.79, non_fac_pe_rvu: 1.04, facility_pe_rvu: 0.44, mp_rvu: 0.13, mult_proc: '2', bilat_surg: '1', asst_surg: '1' };
  const r27447 = { ...base.rvu!, work_rvu: 19.6, non_fac_pe_rvu: 15.3, facility_pe_rvu: 15.3, mp_rvu: 3.98, mult_proc: '2', bilat_surg: '1', asst_surg: '2', co_surg: '1' };
  const fac = { facility: true, decided_by: 'place_of_service' as const };

  it('20610-50 non-facility in Manhattan: 150% of $75.33 exact is $112.99', () => {
    // 0.79x1.064 + 1.04x1.162 + 0.13x1.586 = 0.84056 + 1.20848 + 0.20618 = 2.25522
    // x 33.4009 = 75.326377698 (-> 75.33 unadjusted); x 1.5 = 112.989566547 -> 112.99
    const { composition: c } = composePayment({ ...base, code: '20610', rvu: r20610, policy_modifiers: ['50'] });
    expect(c.physician).toMatchObject({ fee_schedule_amount: 75.33, allowed_phy_payment: 112.99 });
    expect(c.physician!.adjustments).toEqual([{ modifier: '50', rule: 'bilateral', indicator: '1', percent: 150, citation: expect.stringContaining('ch. 12 section 40.7') }]);
    expect(c.estimated_payment).toBe(112.99);
    expect(c.calculation).toEqual([expect.stringMatching(/^modifier 50: 150% \(bilateral, indicator 1; Medicare Claims Processing Manual ch. 12 section 40.7/)]);
  });

  it('27447 facility in Manhattan: -62 62.5% ($938.26), -80 16% ($240.19), -AS 13.6% ($204.16), -80 -51 8% ($120.10)', () => {
    // 19.60x1.064 + 15.30x1.162 + 3.98x1.586 = 20.8544 + 17.7786 + 6.31228 = 44.94528
    // x 33.4009 = 1501.212802752 (-> 1501.21); x 0.625 = 938.258001720 -> 938.26;
    // x 0.16 = 240.194048440 -> 240.19; x 0.136 = 204.164941174 -> 204.16; x 0.08 = 120.097024220 -> 120.10
    const at = (mods: string[]) => composePayment({ ...base, code: '27447', pe: fac, rvu: r27447, policy_modifiers: mods }).composition.physician!;
    expect(at([]).allowed_phy_payment).toBe(1501.21);
    expect(at(['62'])).toMatchObject({ fee_schedule_amount: 1501.21, allowed_phy_payment: 938.26 });
    expect(at(['80']).allowed_phy_payment).toBe(240.19);
    expect(at(['AS']).allowed_phy_payment).toBe(204.16);
    expect(at(['80', '51']).allowed_phy_payment).toBe(120.1);
  });

  it('a modifier that is not payable leaves no physician amount (never the unadjusted one)', () => {
    // 20610 ASST SURG 1: an assistant cannot be paid.
    const { composition: c, warnings } = composePayment({ ...base, code: '20610', rvu: r20610, policy_modifiers: ['80'] });
    expect(c.physician).toBeNull();
    expect(c.estimated_payment).toBe(0);
    expect(warnings.join(' ')).toMatch(/physician: modifier 80: 20610 has assistant-at-surgery indicator 1/);
  });
});

describe('costSharing', () => {
  it('caps the OPPS copayment at the year\'s inpatient deductible ($1,736 in CY2026)', () => {
    const { block } = costSharing({ code: 'X', year: 2026, figures: CY2026, deductible_met: true, physician: 0, dme: 0, lab: 0, opps: { allowed: 9000, copayment: Dec.of('2000.50') } });
    expect(block).toMatchObject({ opps_copayment: 1736, beneficiary_total: 1736, program_payment: 7264 });
  });

  it('takes an unmet deductible from the physician amount first, then coinsurance on the rest', () => {
    // 2025 deductible $257: physician 300 -> 257 deductible, 20% of 43 = 8.60; program 300 - 265.60 = 34.40
    const { block } = costSharing({ code: 'X', year: 2025, figures: CY2025, deductible_met: false, physician: 300, dme: 0, lab: 0, opps: null });
    expect(block).toMatchObject({ part_b_deductible: 257, deductible: 257, coinsurance: 8.6, beneficiary_total: 265.6, program_payment: 34.4 });
  });

  it('wage-adjusts the copayment as the payment, except for G/K drugs, and scales it with PN', () => {
    const opps = { payment_rate: 94.85, apc_code: '5521', status_indicator: 'Q3', relative_weight: null, wage_index: 1.9315, informational: false, national_unadjusted_copayment: null, minimum_unadjusted_copayment: 18.97 };
    expect(oppsCopayment(opps, true, 100)!.toNumber()).toBe(29.572333);
    expect(oppsCopayment(opps, false, 100)!.toNumber()).toBe(18.97);
    expect(oppsCopayment(opps, true, 40)!.toNumber()).toBe(11.8289332);
  });

  it('says so when no figures of the year are loaded, and counts none of another year', () => {
    const { block, warnings } = costSharing({ code: 'X', year: 2019, figures: null, deductible_met: false, physician: 100, dme: 0, lab: 0, opps: { allowed: 3000, copayment: Dec.of(2000) } });
    expect(block).toMatchObject({ part_b_deductible: null, inpatient_deductible: null, deductible: 0, coinsurance: 0, opps_copayment: 2000 });
    expect(warnings).toEqual([
      'beneficiary_cost_sharing: no CY2019 Part B deductible is loaded (medicare_yearly_figures); the deductible is not counted',
      'beneficiary_cost_sharing: no CY2019 Part B coinsurance is loaded (medicare_yearly_figures); the coinsurance is not counted',
      'beneficiary_cost_sharing: no CY2019 inpatient deductible is loaded (medicare_yearly_figures); the OPPS copayment is not capped',
    ]);
  });
});
