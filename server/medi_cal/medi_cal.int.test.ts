import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceAprDrg, selectPolicyAdjustor, type DrgTerms, type HospitalTerms, type PolicyTerms } from './calculate.js';
import { AprDrgBodySchema } from './schemas.js';
import { fiscalYearOf, sfyIn } from '../../datasets/_medi_cal/sheet.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { join } from 'node:path';
import { aprDrgCodes } from '../../datasets/apr_drg_codes/dataset.js';
import { mediCalAprDrg } from '../../datasets/medi_cal_apr_drg/dataset.js';
import { openTestSnapshot, REPO_ROOT } from '../../testing/datasets.js';
import { Trace } from '../trace.js';
import { aprDrgNameOf } from './service.js';

/**
 * The year's terms as the seeds state them (illustrative figures; the labor shares, their cutoff
 * and the 60% marginal cost percentage are the SFY 2018-19 values CHA reported).
 */
const POLICY: PolicyTerms = {
  parameters: {
    statewide_base_price: 7000,
    remote_rural_base_price: 11000,
    labor_share_low: 0.62,
    labor_share_high: 0.683,
    labor_share_wage_index_cutoff: 1,
    casemix_adjustment_factor: 0.98,
    cost_outlier_threshold: 60000,
    low_side_outlier_threshold: 15000,
    marginal_cost_percentage: 0.6,
    interim_claim_threshold: 29,
    interim_per_diem_amount: 600,
    add_on_amount: 0,
    pediatric_age_cutoff: 21,
  },
  adjustors: [
    { policy_adjustor_code: 'A', age_group: 'pediatric', care_category: 'Neonate', designated_nicu: 'Y' },
    { policy_adjustor_code: 'B', age_group: 'pediatric', care_category: '*', designated_nicu: '*' },
    { policy_adjustor_code: 'C', age_group: 'adult', care_category: '*', designated_nicu: '*' },
    { policy_adjustor_code: 'D', age_group: 'pediatric', care_category: 'Neonate', designated_nicu: 'N' },
  ],
  transfer_status_codes: ['02', '05', '66', '82', '85', '94'],
};

const drg = (weight: number, alos: number, adult: string, ped: string, a: number, b: number, c: number, d: number): DrgTerms => ({
  hsrv_casemix_relative_weight: weight,
  national_average_los: alos,
  medicaid_care_category_adult: adult,
  medicaid_care_category_pediatric: ped,
  policy_adjustor_a: a,
  policy_adjustor_b: b,
  policy_adjustor_c: c,
  policy_adjustor_d: d,
});
const PNEUMONIA_2 = drg(0.7123, 3.6, 'Respiratory', 'Misc Pediatric', 1, 1.25, 1, 1); // 139-2
const PNEUMONIA_4 = drg(2.1456, 8.7, 'Respiratory', 'Misc Pediatric', 1, 1.75, 1.1, 1); // 139-4
const SEPSIS_4 = drg(2.8765, 10.2, 'Misc Adult', 'Misc Pediatric', 1, 1.75, 1.1, 1); // 720-4
const NEONATE_3 = drg(0.6789, 4.6, 'Neonate', 'Neonate', 1.75, 1.25, 1, 1.25); // 640-3

const hospital = (wi: number, ccr: number, o: Partial<HospitalTerms> = {}): HospitalTerms => ({
  designated_nicu: false,
  dhcs_designated_remote_rural: false,
  cost_to_charge_ratio: ccr,
  ca_neutrality_adjusted_wage_index: wi,
  ...o,
});
const COMMUNITY = hospital(0.9282, 0.3); // 106999002
const URBAN_NICU = hospital(1.3679, 0.25, { designated_nicu: true }); // 106999001
const REMOTE_RURAL = hospital(0.8598, 0.4, { dhcs_designated_remote_rural: true }); // 106999003

describe('priceAprDrg: one worked example per branch (figures of the illustrative seeds)', () => {
  it('no outlier: wage-adjusted base x payment weight x adjustor, cost below both thresholds', () => {
    const c = priceAprDrg(PNEUMONIA_2, COMMUNITY, POLICY, { length_of_stay: 4, patient_age: 67, total_charges: 30000 });
    // wage index 0.9282 <= 1.0, labor share 0.62: 7000 x (0.62 x 0.9282 + 0.38) = 7000 x 0.955484 = 6688.388 -> 6688.39
    expect(c.labor_share).toBe(0.62);
    expect(c.drg_base_rate).toBe(6688.39);
    // 0.7123 x 0.98 = 0.698054; an adult (67) is category Respiratory, row C (adult, *, *) -> column C = 1.00
    expect(c.payment_relative_weight).toBe(0.698054);
    expect([c.age_group, c.care_category, c.policy_adjustor_code, c.policy_adjustor_value]).toEqual(['adult', 'Respiratory', 'C', 1]);
    // 6688.39 x 0.698054 x 1 = 4668.85739306 -> 4668.86
    expect(c.drg_base_payment).toBe(4668.86);
    // cost 30000 x 0.30 = 9000.00; loss 9000.00 - 4668.86 = 4331.14 < 60000: no outlier; gain 0
    expect([c.estimated_cost, c.estimated_loss, c.estimated_gain, c.case_margin_status]).toEqual([9000, 4331.14, 0, 'loss']);
    expect([c.high_side_outlier_applies, c.low_side_outlier_applies, c.high_side_outlier_payment_increase, c.low_side_outlier_payment_decrease]).toEqual([false, false, 0, 0]);
    expect([c.drg_payment_so_far, c.allowed_amount, c.lesser_of_amount, c.payment_amount]).toEqual([4668.86, 4668.86, 4668.86, 4668.86]);
    expect([c.transfer_applies, c.transfer_payment_adjustment, c.interim_claim_applies]).toEqual([false, 0, false]);
  });

  it('high-side outlier: (loss - threshold) x marginal cost percentage is added', () => {
    const c = priceAprDrg(SEPSIS_4, URBAN_NICU, POLICY, { length_of_stay: 12, patient_age: 55, total_charges: 500000 });
    // wage index 1.3679 > 1.0, labor share 0.683: 7000 x (0.683 x 1.3679 + 0.317) = 7000 x 1.2512757 = 8758.9299 -> 8758.93
    expect([c.labor_share, c.drg_base_rate]).toEqual([0.683, 8758.93]);
    // 8758.93 x (2.8765 x 0.98 = 2.81897) x 1.10 (column C, SOI 4) = 27160.27699231 -> 27160.28
    expect([c.policy_adjustor_code, c.policy_adjustor_value, c.drg_base_payment]).toEqual(['C', 1.1, 27160.28]);
    // cost 500000 x 0.25 = 125000.00; loss 125000.00 - 27160.28 = 97839.72 > 60000
    expect([c.estimated_cost, c.estimated_loss, c.high_side_outlier_applies]).toEqual([125000, 97839.72, true]);
    // (97839.72 - 60000) x 0.6 = 22703.832 -> 22703.83; so far 27160.28 + 22703.83 = 49864.11
    expect(c.high_side_outlier_payment_increase).toBe(22703.83);
    expect([c.drg_payment_so_far, c.allowed_amount, c.payment_amount]).toEqual([49864.11, 49864.11, 49864.11]);
  });

  it('low-side outlier: (gain - low-side threshold) x marginal cost percentage is taken off', () => {
    const c = priceAprDrg(SEPSIS_4, URBAN_NICU, POLICY, { length_of_stay: 10, patient_age: 55, total_charges: 20000 });
    // base payment 27160.28 (above); cost 20000 x 0.25 = 5000.00; gain 27160.28 - 5000.00 = 22160.28 > 15000
    expect([c.estimated_cost, c.estimated_gain, c.case_margin_status, c.low_side_outlier_applies]).toEqual([5000, 22160.28, 'gain', true]);
    // (22160.28 - 15000) x 0.6 = 4296.168 -> 4296.17; so far 27160.28 - 4296.17 = 22864.11; charges 20000 are less
    expect(c.low_side_outlier_payment_decrease).toBe(4296.17);
    expect(c.drg_payment_so_far).toBe(22864.11);
    expect([c.allowed_amount, c.lesser_of_amount, c.payment_amount]).toEqual([22864.11, 20000, 20000]);
  });

  it('lesser of charges: charges below the allowed amount are paid', () => {
    const c = priceAprDrg(PNEUMONIA_2, COMMUNITY, POLICY, { length_of_stay: 2, patient_age: 40, total_charges: 3000 });
    // base payment 4668.86 (first example); cost 3000 x 0.30 = 900.00; gain 3768.86 < 15000: no low-side outlier
    expect([c.estimated_gain, c.low_side_outlier_applies, c.allowed_amount]).toEqual([3768.86, false, 4668.86]);
    // lesser of 4668.86 and 3000.00 = 3000.00
    expect([c.lesser_of_amount, c.payment_amount]).toEqual([3000, 3000]);
  });

  it('transfer: per diem x (length of stay + 1), when less than the DRG base payment', () => {
    const c = priceAprDrg(PNEUMONIA_2, COMMUNITY, POLICY, { length_of_stay: 1, patient_age: 67, total_charges: 30000, discharge_status: '02' });
    // per diem 4668.86 / 3.6 = 1296.9055... -> 1296.91; x (1 + 1) = 2593.82 < 4668.86
    expect([c.transfer_applies, c.transfer_per_diem, c.transfer_payment]).toEqual([true, 1296.91, 2593.82]);
    // adjustment 2593.82 - 4668.86 = -2075.04; cost 9000.00, loss 9000.00 - 2593.82 = 6406.18: no outlier
    expect([c.allowed_after_transfer_adjustment, c.transfer_payment_adjustment, c.estimated_loss]).toEqual([2593.82, -2075.04, 6406.18]);
    expect(c.payment_amount).toBe(2593.82);
    // A longer transfer stay reaches the full DRG payment: 1296.91 x (4 + 1) = 6484.55 > 4668.86
    const long = priceAprDrg(PNEUMONIA_2, COMMUNITY, POLICY, { length_of_stay: 4, patient_age: 67, total_charges: 30000, discharge_status: '02' });
    expect([long.transfer_payment, long.allowed_after_transfer_adjustment, long.transfer_payment_adjustment]).toEqual([6484.55, 4668.86, 0]);
    // Discharged home (01) is no transfer.
    expect(priceAprDrg(PNEUMONIA_2, COMMUNITY, POLICY, { length_of_stay: 1, patient_age: 67, total_charges: 30000, discharge_status: '01' }).transfer_applies).toBe(false);
  });

  it('interim claim: a stay past the threshold without a discharge is paid the per diem x days', () => {
    const c = priceAprDrg(PNEUMONIA_4, COMMUNITY, POLICY, { length_of_stay: 35, patient_age: 70, total_charges: 200000 });
    // 35 days > 29: 600.00 x 35 = 21000.00 replaces the DRG amount (6688.39 x 2.102688 x 1.10 = 15469.96)
    expect([c.interim_claim_applies, c.interim_claim_payment, c.drg_payment_so_far, c.add_on_amount]).toEqual([true, 21000, 15469.96, 0]);
    expect([c.allowed_amount, c.payment_amount]).toEqual([21000, 21000]);
    // Still a patient (30) is an interim bill too; a discharge (01) is the final claim, priced by DRG.
    expect(priceAprDrg(PNEUMONIA_4, COMMUNITY, POLICY, { length_of_stay: 35, patient_age: 70, total_charges: 200000, discharge_status: '30' }).interim_claim_applies).toBe(true);
    const final = priceAprDrg(PNEUMONIA_4, COMMUNITY, POLICY, { length_of_stay: 35, patient_age: 70, total_charges: 200000, discharge_status: '01' });
    expect([final.interim_claim_applies, final.interim_claim_payment, final.allowed_amount]).toEqual([false, 0, 15469.96]);
    // At the threshold (29 days) it is not an interim claim.
    expect(priceAprDrg(PNEUMONIA_4, COMMUNITY, POLICY, { length_of_stay: 29, patient_age: 70, total_charges: 200000 }).interim_claim_applies).toBe(false);
  });

  it('NICU adjustor: a neonate at a designated NICU hospital takes column A, elsewhere column D', () => {
    const c = priceAprDrg(NEONATE_3, URBAN_NICU, POLICY, { length_of_stay: 4, patient_age: 0, total_charges: 40000 });
    // age 0 < 21: pediatric, category Neonate; the hospital has a designated NICU: row A (pediatric, Neonate, Y) = 1.75
    expect([c.age_group, c.care_category, c.designated_nicu, c.policy_adjustor_code, c.policy_adjustor_value]).toEqual(['pediatric', 'Neonate', true, 'A', 1.75]);
    // 8758.93 x (0.6789 x 0.98 = 0.665322) x 1.75 = 10198.140444555 -> 10198.14
    expect(c.drg_base_payment).toBe(10198.14);
    // The override designated_nicu=false selects row D (pediatric, Neonate, N) = 1.25: 8758.93 x 0.665322 x 1.25 = 7284.386... -> 7284.39
    const off = priceAprDrg(NEONATE_3, URBAN_NICU, POLICY, { length_of_stay: 4, patient_age: 0, total_charges: 40000 }, { designated_nicu: false });
    expect([off.policy_adjustor_code, off.policy_adjustor_value, off.drg_base_payment]).toEqual(['D', 1.25, 7284.39]);
    // A 21-year-old is an adult: row C.
    expect(priceAprDrg(NEONATE_3, URBAN_NICU, POLICY, { length_of_stay: 4, patient_age: 21, total_charges: 40000 }).policy_adjustor_code).toBe('C');
  });

  it('remote rural: the remote rural base price is wage adjusted', () => {
    const c = priceAprDrg(PNEUMONIA_2, REMOTE_RURAL, POLICY, { length_of_stay: 3, patient_age: 50, total_charges: 25000 });
    // 11000 x (0.62 x 0.8598 + 0.38) = 11000 x 0.913076 = 10043.836 -> 10043.84
    expect([c.base_price, c.base_price_source, c.drg_base_rate]).toEqual([11000, 'remote_rural_base_price', 10043.84]);
    // 10043.84 x 0.698054 x 1 = 7011.14268736 -> 7011.14; cost 25000 x 0.40 = 10000.00, loss 2988.86
    expect([c.drg_base_payment, c.estimated_cost, c.estimated_loss, c.payment_amount]).toEqual([7011.14, 10000, 2988.86, 7011.14]);
  });

  it('overrides: the wage-adjusted base rate and cost-to-charge ratio of the request are priced with', () => {
    const c = priceAprDrg(PNEUMONIA_2, COMMUNITY, POLICY, { length_of_stay: 4, patient_age: 67, total_charges: 30000 }, { wage_adjusted_base_rate: 7000, cost_to_charge_ratio: 0.5 });
    // 7000.00 x 0.698054 = 4886.378 -> 4886.38; cost 30000 x 0.5 = 15000.00
    expect([c.base_price_source, c.drg_base_rate, c.computed_drg_base_rate, c.drg_base_payment, c.estimated_cost]).toEqual(['override', 7000, 6688.39, 4886.38, 15000]);
  });

  it('adds the add-on to the DRG amount', () => {
    const withAddOn = { ...POLICY, parameters: { ...POLICY.parameters, add_on_amount: 250 } };
    const c = priceAprDrg(PNEUMONIA_2, COMMUNITY, withAddOn, { length_of_stay: 4, patient_age: 67, total_charges: 30000 });
    // 4668.86 + 250.00 = 4918.86
    expect([c.drg_payment_so_far, c.add_on_amount, c.allowed_amount]).toEqual([4668.86, 250, 4918.86]);
  });
});

describe('selectPolicyAdjustor', () => {
  it('prefers the row naming the care category and NICU designation over a wildcard row', () => {
    expect(selectPolicyAdjustor(POLICY.adjustors, 'pediatric', 'Neonate', true)?.policy_adjustor_code).toBe('A');
    expect(selectPolicyAdjustor(POLICY.adjustors, 'pediatric', 'neonate', false)?.policy_adjustor_code).toBe('D');
    expect(selectPolicyAdjustor(POLICY.adjustors, 'pediatric', 'Misc Pediatric', true)?.policy_adjustor_code).toBe('B');
    expect(selectPolicyAdjustor(POLICY.adjustors.slice(0, 2), 'adult', 'Misc Adult', false)).toBeUndefined();
  });

  it('prices with adjustor 1 and code none when no row matches', () => {
    const c = priceAprDrg(PNEUMONIA_2, COMMUNITY, { ...POLICY, adjustors: [] }, { length_of_stay: 4, patient_age: 67, total_charges: 30000 });
    expect([c.policy_adjustor_code, c.policy_adjustor_value, c.drg_base_payment]).toEqual(['none', 1, 4668.86]);
  });
});

describe('priceAprDrg properties', () => {
  // A small deterministic generator (mulberry32): the same 3,000 cases every run.
  let s = 20251;
  const rnd = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const cases = Array.from({ length: 3000 }, () => ({
    drg: pick([PNEUMONIA_2, PNEUMONIA_4, SEPSIS_4, NEONATE_3]),
    hospital: pick([COMMUNITY, URBAN_NICU, REMOTE_RURAL]),
    stay: {
      length_of_stay: Math.floor(rnd() * 60),
      patient_age: Math.floor(rnd() * 95),
      total_charges: Math.round(rnd() * rnd() * 2_000_000 * 100) / 100,
      discharge_status: pick([undefined, '01', '02', '30', '66']),
    },
    overrides: pick([{}, { cost_to_charge_ratio: Math.round(rnd() * 200) / 100 }, { wage_adjusted_base_rate: Math.round(rnd() * 2_000_000) / 100 }, { designated_nicu: rnd() < 0.5 }]),
    policy: { ...POLICY, parameters: { ...POLICY.parameters, add_on_amount: pick([0, 125.5]) } },
  }));

  it('never pays more than the charges', () => {
    for (const k of cases) {
      const c = priceAprDrg(k.drg, k.hospital, k.policy, k.stay, k.overrides);
      expect(c.payment_amount, JSON.stringify(k)).toBeLessThanOrEqual(k.stay.total_charges);
    }
  });

  it('never pays a negative amount, and pays the lesser of the allowed amount and the charges', () => {
    for (const k of cases) {
      const c = priceAprDrg(k.drg, k.hospital, k.policy, k.stay, k.overrides);
      expect(c.payment_amount, JSON.stringify(k)).toBeGreaterThanOrEqual(0);
      expect(c.drg_payment_so_far, JSON.stringify(k)).toBeGreaterThanOrEqual(0);
      expect(c.payment_amount).toBe(Math.min(c.allowed_amount, c.total_charges));
    }
  });
});

describe('request body', () => {
  const base = { oshpd_id: '106999002', length_of_stay: 4, patient_age: 67, total_charges: 30000 };
  it('takes the DRG alone with soi, or as DRG-SOI, normalised to three digits', () => {
    expect(AprDrgBodySchema.parse({ ...base, apr_drg: '139', soi: 2 })).toMatchObject({ apr_drg: '139', soi: 2 });
    expect(AprDrgBodySchema.parse({ ...base, apr_drg: '139-2' })).toMatchObject({ apr_drg: '139', soi: 2 });
    expect(AprDrgBodySchema.parse({ ...base, apr_drg: '54-1', soi: 1 })).toMatchObject({ apr_drg: '054', soi: 1 });
  });

  it('refuses a DRG-SOI and soi that disagree, naming both, and a DRG without any SOI', () => {
    const mismatch = AprDrgBodySchema.safeParse({ ...base, apr_drg: '139-2', soi: 3 });
    expect(mismatch.success).toBe(false);
    expect(mismatch.error!.issues[0]!.message).toMatch(/apr_drg '139-2' says SOI 2 but soi is 3/);
    expect(AprDrgBodySchema.safeParse({ ...base, apr_drg: '139' }).error!.issues[0]).toMatchObject({ path: ['soi'] });
  });

  it('refuses negative amounts and days, an SOI outside 1-4 and unknown fields, all at once', () => {
    const r = AprDrgBodySchema.safeParse({ apr_drg: '139', soi: 5, oshpd_id: '12', length_of_stay: -1, patient_age: -2, total_charges: -3, surprise: 1 });
    const paths = r.error!.issues.map((i) => i.path.join('.') || i.code);
    for (const p of ['soi', 'oshpd_id', 'length_of_stay', 'patient_age', 'total_charges']) expect(paths).toContain(p);
    expect(r.error!.issues.some((i) => i.code === 'unrecognized_keys')).toBe(true);
  });
});

describe('state fiscal years', () => {
  it('runs July 1 to June 30', () => {
    expect(fiscalYearOf('2025-07-01')).toBe('2025-26');
    expect(fiscalYearOf('2026-06-30')).toBe('2025-26');
    expect(fiscalYearOf('2026-07-01')).toBe('2026-27');
    expect(fiscalYearOf('2099-12-31')).toBe('2099-00');
  });

  it('reads an SFY from a title or a file name, and refuses years that do not follow each other', () => {
    expect(sfyIn('Medi-Cal DRG Payment Method: Hospital List, State Fiscal Year 2025-26')).toEqual({ label: '2025-26', effective_date: '2025-07-01' });
    expect(sfyIn('SFY2024-2025 DRG Hospital List.xlsx')).toEqual({ label: '2024-25', effective_date: '2024-07-01' });
    expect(sfyIn('SFY 2025-24')).toBeUndefined();
  });
});

describe('POST /v1/medi-cal/apr-drg/payment', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });
  const path = '/v1/medi-cal/apr-drg/payment';
  const stay = { apr_drg: '139-2', oshpd_id: '106999002', length_of_stay: 4, patient_age: 67, total_charges: 30000 };

  it('prices a stay from the seeded tables, degraded with a warning naming each illustrative table', async () => {
    const r = await t.request(path, { method: 'POST', body: { ...stay, discharge_date: '2026-03-02' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ payment_amount: 4668.86, allowed_amount: 4668.86, total_base_payment: 4668.86, fiscal_year: '2025-26', fiscal_year_source: 'discharge_date', payer: 'medi_cal', discharge_date: '2026-03-02' });
    expect(r.body.drg).toMatchObject({ drg_soi: '139-2', apr_drg: '139', soi: 2, hsrv_casemix_relative_weight: 0.7123 });
    expect(r.body.hospital).toMatchObject({ oshpd_id: '106999002', admin2_level_190_rate: 850, admin2_level_199_rate: 900, overridden: [] });
    expect(r.body.policy).toMatchObject({ casemix_adjustment_factor: 0.98, cost_outlier_threshold: 60000, marginal_cost_percentage: 0.6, interim_claim_threshold: 29 });
    expect(r.body.reliability.degraded).toBe(true);
    const w = r.body.reliability.warnings.join('\n');
    for (const table of ['medi_cal_apr_drg', 'medi_cal_hospitals', 'medi_cal_drg_policy']) expect(w).toContain(table);
    expect(r.body.reliability.dataset_versions).toEqual({ medi_cal_apr_drg: '2025-26', medi_cal_hospitals: '2025-26', medi_cal_drg_policy: '2025-26', apr_drg_codes: 'tuva-296f4dc' });
  });

  it('names the APR-DRG from the APR-DRG code list, citing it; a DRG the list lacks is a warning, not an error', async () => {
    const r = await t.request(path, { method: 'POST', body: { ...stay, discharge_date: '2026-03-02' } });
    // seeds/apr_drg_codes (Tuva @ 296f4dc): `"139","M","04","OTHER PNEUMONIA"`.
    expect(r.body.apr_drg_name).toEqual({ apr_drg: '139', description: 'OTHER PNEUMONIA', medical_surgical: 'M', mdc: '04', source: expect.objectContaining({ dataset: 'apr_drg_codes', version: 'tuva-296f4dc', source_files: ['apr_drg_codes_tuva-296f4dc_2024-01-02.csv'] }) });
    // DRG 194 is in the DHCS seed table and the list; the list's name differs from DHCS's casing only.
    const hf = await t.request(path, { method: 'POST', body: { ...stay, apr_drg: '194-1', discharge_date: '2026-03-02' } });
    expect(hf.body.apr_drg_name).toMatchObject({ apr_drg: '194', description: 'HEART FAILURE', mdc: '05' });
  });

  it('answers a DRG the code list lacks, and a list not loaded, with null and a warning (aprDrgNameOf)', async () => {
    const seedList = join(REPO_ROOT, 'seeds/apr_drg_codes/apr_drg_codes_tuva-296f4dc_2024-01-02.csv');
    const snap = await openTestSnapshot([{ dataset: aprDrgCodes, files: [seedList] }]);
    try {
      const trace = new Trace(snap, () => new Date(0));
      // The seed lists 8 DRGs; 775 (alcohol abuse and dependence) is not among them.
      expect(await aprDrgNameOf(snap, '775', '2026-03-02', trace)).toBeNull();
      expect(trace.warnings).toEqual(['APR-DRG 775 is not in the APR-DRG code list tuva-296f4dc (apr_drg_codes): its description there is not known']);
      expect(trace.versions).toEqual({ apr_drg_codes: 'tuva-296f4dc' });
      // A discharge before the list's effective date is still named, with the date rule's warning.
      const early = new Trace(snap, () => new Date(0));
      expect(await aprDrgNameOf(snap, '640', '2023-12-01', early)).toMatchObject({ description: 'NEONATE BIRTHWT >2499G, NORMAL NEWBORN OR NEONATE W OTHER PROBLEM' });
      expect(early.warnings).toEqual([expect.stringMatching(/no apr_drg_codes release loaded is effective on 2023-12-01/)]);
    } finally {
      snap.close();
    }
    const none = await openTestSnapshot([{ dataset: mediCalAprDrg, files: [join(REPO_ROOT, 'seeds/medi_cal_apr_drg/SFY 2025-26 APR-DRG Table.csv')] }]);
    try {
      const trace = new Trace(none, () => new Date(0));
      expect(await aprDrgNameOf(none, '139', '2026-03-02', trace)).toBeNull();
      expect(trace.warnings).toEqual([expect.stringMatching(/^apr_drg_codes is not loaded/)]);
    } finally {
      none.close();
    }
  });

  it('uses the latest loaded fiscal year without a discharge date and says so', async () => {
    const r = await t.request(path, { method: 'POST', body: stay });
    expect(r.status).toBe(200);
    expect([r.body.fiscal_year, r.body.fiscal_year_source, r.body.discharge_date]).toEqual(['2025-26', 'latest_loaded', null]);
    expect(r.body.caveats.join('\n')).toMatch(/latest loaded fiscal year's tables \(SFY 2025-26\)/);
  });

  it('answers 422 naming the loaded years for a discharge in a fiscal year not loaded', async () => {
    const r = await t.request(path, { method: 'POST', body: { ...stay, discharge_date: '2026-07-01' } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'discharge_date'], ctx: { fiscal_year: '2026-27', loaded: ['2025-26'] } })]);
    expect(r.body.detail[0].msg).toMatch(/SFY 2026-27.*loaded: SFY 2025-26/);
  });

  it('answers 422 with every issue at once, the DRG-SOI mismatch among them', async () => {
    const r = await t.request(path, { method: 'POST', body: { ...stay, soi: 3, total_charges: -1 } });
    expect(r.status).toBe(422);
    const locs = r.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.soi', 'body.total_charges']));
  });

  it('answers 404 with suggestions for an unknown hospital or DRG-SOI', async () => {
    const h = await t.request(path, { method: 'POST', body: { ...stay, oshpd_id: '106999009' } });
    expect(h.status).toBe(404);
    expect(h.body.code).toBe('not_found');
    expect(h.body.suggestions[0]).toMatchObject({ oshpd_id: expect.stringMatching(/^10699900/) });
    const d = await t.request(path, { method: 'POST', body: { ...stay, apr_drg: '560-3' } });
    expect(d.status).toBe(404);
    expect(d.body.suggestions.map((s: { drg_soi: string }) => s.drg_soi)).toEqual(['560-1', '560-2']);
    expect(d.body.detail).toMatch(/APR-DRG 560 has no SOI 3/);
  });

  it('prices a transfer and names the overrides it used', async () => {
    const r = await t.request(path, { method: 'POST', body: { ...stay, length_of_stay: 1, discharge_status: '02', cost_to_charge_ratio: 0.3 } });
    expect(r.status).toBe(200);
    expect(r.body.calculation).toMatchObject({ transfer_applies: true, transfer_per_diem: 1296.91, allowed_after_transfer_adjustment: 2593.82 });
    expect(r.body.total_base_payment).toBe(2593.82);
    expect(r.body.hospital.overridden).toEqual(['cost_to_charge_ratio']);
    expect(r.body.caveats.join('\n')).toMatch(/Discharge status 02 is a transfer/);
  });

  it('notes that a designated public hospital is not paid by DRG', async () => {
    const r = await t.request(path, { method: 'POST', body: { ...stay, oshpd_id: '106999004' } });
    expect(r.status).toBe(200);
    expect(r.body.caveats.join('\n')).toMatch(/Designated public hospital/);
  });
});
