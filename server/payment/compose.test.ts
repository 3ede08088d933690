import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { facilities } from '../../datasets/facilities/dataset.js';
import { openTestSnapshot } from '../../testing/datasets.js';
import { medicareYearlyFigures } from '../../datasets/medicare_yearly_figures/dataset.js';
import { mpfsRvu } from '../../datasets/mpfs_rvu/dataset.js';
import { isHospitalType, resolveFacility } from '../facilities/service.js';
import { Trace } from '../trace.js';
import { composePaymentFor } from './service.js';

const SEEDS = resolve(import.meta.dirname, '../../seeds');
let snap: Awaited<ReturnType<typeof openTestSnapshot>>;

// Only RVUs, facilities and the yearly figures are loaded: no ZIP/county crosswalks, GPCI, wage index or fee schedules.
const FIGURES = { dataset: medicareYearlyFigures, files: [2025, 2026].map((y) => join(SEEDS, `medicare_yearly_figures/${y}.yaml`)) };
beforeAll(async () => {
  snap = await openTestSnapshot([
    { dataset: mpfsRvu, files: [join(SEEDS, 'mpfs_rvu/PPRRVU2025_Oct.csv')] },
    { dataset: facilities, files: [join(SEEDS, '../test/fixtures/facilities/Hospital_and_other.DATA.Q3_2025.csv')] },
    FIGURES,
  ]);
});
afterAll(() => snap.close());

/** The composition for a payment query (`ccn` resolved as the route does, without a tenant) and its trace's reliability. */
async function compose(q: { code: string; ccn?: string; today?: string }) {
  const trace = new Trace(snap, () => new Date('2026-03-02T00:00:00Z'));
  const facility = q.ccn ? await resolveFacility(snap, null, q.ccn, 'reference') : null;
  const composition = await composePaymentFor(snap, { today: '2026-03-02', ...q, facility }, trace);
  return { composition, warnings: trace.warnings, degraded: trace.degraded, reliability: trace.reliability() };
}

describe('composePaymentFor with missing reference data', () => {
  it('falls back to national GPCIs for a facility whose locality cannot be resolved, and says it is degraded', async () => {
    // 99213 facility PE, GPCI 1.000: (1.30 + 0.57 + 0.10) x 33.4009 = 1.97 x 33.4009 = 65.799773 -> 65.80
    const a = await compose({ code: '99213', ccn: '330101', today: '2026-03-02' });
    expect(a.degraded).toBe(true);
    expect(a.composition).toMatchObject({ locality: 'national', pw_gpci: 1, facility_rate: true, estimated_payment: 65.8, applicable_blocks: ['physician'] });
    expect(a.warnings.join(' ')).toMatch(/locality of facility 330101 is unknown; national GPCIs/);
    // Needed but not loaded: reliability names them missing.
    expect(a.reliability.dataset_versions).toMatchObject({ mpfs_rvu: '2025D', facilities: '2025Q3', medicare_yearly_figures: '2026-12-06' });
    for (const d of ['opps_addendum_b', 'clfs', 'dmepos']) expect(a.reliability.warnings).toContain(`dataset ${d} is not loaded in snapshot ${snap.id}`);
  });

  it('is not degraded without ccn when the caller asks for national amounts', async () => {
    // Today is in CY2025, the year of the loaded RVU release: its own conversion factor, nothing borrowed.
    const a = await compose({ code: '99213', today: '2025-12-01' });
    expect(a.degraded).toBe(false);
    expect(a.composition).toMatchObject({ date_of_service: '2025-12-01', conversion_factor: 32.3465 });
    expect(a.composition.estimated_payment).toBe(88.95); // 2.75 x 32.3465 = 88.952875
  });

  it('prices for today when no date of service is given, and says which year\'s RVUs it had to use', async () => {
    const a = await compose({ code: '99213', today: '2026-03-02' });
    expect(a.composition).toMatchObject({ date_of_service: '2026-03-02', conversion_factor: 33.4009, estimated_payment: 91.85 }); // 2.75 x 33.4009
    expect(a.degraded).toBe(true);
    expect(a.warnings).toContain("physician: no CY2026 RVU release is loaded; the 99213 RVUs are the nearest release's, CY2025 (mpfs_rvu 2025D)");
  });

  it('without the yearly figures, borrows no other year\'s: the CY2026 factor is the RVU release\'s, with a warning, and no deductible is counted', async () => {
    const bare = await openTestSnapshot([{ dataset: mpfsRvu, files: [join(SEEDS, 'mpfs_rvu/PPRRVU2025_Oct.csv')] }]);
    try {
      const trace = new Trace(bare, () => new Date('2026-03-02T00:00:00Z'));
      const c = await composePaymentFor(bare, { code: '99213', today: '2026-03-02', deductible_met: false, facility: null }, trace);
      // 2.75 x 32.3465 = 88.952875 -> 88.95 (the CY2025 release lends its factor), nothing of CY2026 guessed.
      expect(c).toMatchObject({ conversion_factor: 32.3465, estimated_payment: 88.95 });
      expect(c.beneficiary_cost_sharing).toMatchObject({ part_b_deductible: null, deductible: 0, coinsurance: 0 });
      const r = trace.reliability();
      expect(r.degraded).toBe(true);
      expect(r.warnings).toContain(`dataset medicare_yearly_figures is not loaded in snapshot ${bare.id}`);
      expect(r.warnings).toContain('beneficiary_cost_sharing: no CY2026 Part B deductible is loaded (medicare_yearly_figures); the deductible is not counted');
    } finally {
      await bare.close();
    }
  });

  it('says a year without a document is not loaded, degraded, and uses no other year\'s figures', async () => {
    const trace = new Trace(snap, () => new Date('2026-03-02T00:00:00Z'));
    const c = await composePaymentFor(snap, { code: '99213', today: '2026-03-02', date_of_service: '2025-06-02', facility: null }, trace);
    expect(c.beneficiary_cost_sharing).toMatchObject({ year: 2025, part_b_deductible: 257 });
    const t2027 = new Trace(snap, () => new Date('2026-03-02T00:00:00Z'));
    const later = await composePaymentFor(snap, { code: '99213', today: '2026-03-02', date_of_service: '2027-02-01', facility: null }, t2027);
    expect(later.beneficiary_cost_sharing).toMatchObject({ year: 2027, part_b_deductible: null, inpatient_deductible: null, coinsurance: 0 });
    expect(t2027.degraded).toBe(true);
    expect(t2027.warnings).toContain("no CY2027 Medicare yearly figures are loaded (medicare_yearly_figures has CY2025, CY2026): the year's deductibles, coinsurance and preventive services are not counted");
  });

  it('throws not_found for an unknown CCN and a code on no schedule', async () => {
    await expect(compose({ code: '99213', ccn: '999999' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(compose({ code: 'ZZ999' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('treats hospital types as facility settings and others not', () => {
    for (const t of ['acute_care_hospital', 'critical_access_hospital', 'childrens_hospital', 'hospital']) expect(isHospitalType(t)).toBe(true);
    for (const t of ['pos_category_02', 'medicaid_only_hospital', 'rural_health_clinic']) expect(isHospitalType(t)).toBe(false);
  });
});

describe('PC/TC indicator 4 families', () => {
  it('a global-test-only code whose family is not in the table has no physician amount at a hospital, with a warning', async () => {
    const { PCTC4_FAMILIES } = await import('./service.js');
    const table = PCTC4_FAMILIES as Record<string, unknown>;
    const saved = table['93000'];
    delete table['93000'];
    try {
      const trace = new Trace(snap, () => new Date('2026-03-02T00:00:00Z'));
      const c = await composePaymentFor(snap, { code: '93000', place_of_service: '22', today: '2026-03-02', facility: null }, trace);
      expect(c.physician).toBeNull();
      expect(c.estimated_payment).toBe(0);
      expect(trace.warnings.join(' ')).toMatch(/93000 is a global-test-only code .* not in the table of families; no physician amount/);
    } finally {
      table['93000'] = saved;
    }
  });
});
