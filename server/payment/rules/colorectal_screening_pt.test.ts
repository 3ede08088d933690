import { describe, expect, it } from 'vitest';
import { yearFigures } from '../../../datasets/medicare_yearly_figures/queries.js';
import { composeOn, figuresOf, usePaymentSnapshot } from '../../../testing/payment.js';
import { costSharing } from '../calculate.js';
import type { RuleLine } from './rule.js';
import { colorectalScreeningPt } from './colorectal_screening_pt.js';

/*
 * Worked by hand from section 1833(dd) of the Act (CAA 2021 section 122; MLN MM12656) and the seeds:
 *   45385 (PPRRVU2025_Oct.csv, real row): work 4.57, non-facility PE 8.33, MP 0.56.
 *   Manhattan 1320201 (GPCI2026.csv): 1.064 / 1.162 / 1.586; CY2026 non-QPP CF 33.4009.
 *   4.57 x 1.064 = 4.86248; 8.33 x 1.162 = 9.67946; 0.56 x 1.586 = 0.88816; total 15.43010
 *   x 33.4009 = 515.379227090 -> $515.38.
 *   PT, CY2026 (85% paid): no deductible; coinsurance 15% of 515.38 = 77.307 -> $77.31; program 515.38 - 77.31 = $438.07.
 *   Without PT, deductible not met: the CY2026 $283 first, then 20% of 232.38 = 46.476 -> $46.48.
 */
const snap = usePaymentSnapshot();

describe('colorectal_screening_pt: modifier PT, a colorectal cancer screening test that became therapeutic', () => {
  it('takes no Part B deductible and 15% coinsurance for 45385-PT in CY2026: $77.31 of $515.38', async () => {
    const { composition: c } = await composeOn(snap(), { code: '45385', locality: '1320201', modifier: ['PT'], deductible_met: false });
    expect(c.physician?.allowed_phy_payment).toBe(515.38);
    expect(c.beneficiary_cost_sharing).toMatchObject({ year: 2026, deductible_applies: false, deductible: 0, coinsurance: 77.31, beneficiary_total: 77.31, program_payment: 438.07 });
    expect(c.beneficiary_cost_sharing.citations.join(' ')).toMatch(/section 1833\(dd\).*section 122.*MM12656/);
    expect(c.calculation.join(' ')).toMatch(/modifier PT .*no Part B deductible \(section 1833\(b\)\(8\).*coinsurance 15% for CY2026/);
  });

  it('leaves 45385 without PT at the deductible and 20%: $283 + $46.48', async () => {
    const { composition: c } = await composeOn(snap(), { code: '45385', locality: '1320201', deductible_met: false });
    expect(c.beneficiary_cost_sharing).toMatchObject({ deductible_applies: true, deductible: 283, coinsurance: 46.48 });
  });

  it('applies to any code with PT, the OPPS copayment too: 70450-PT at UCSF pays 15% of the OPPS amount, not the Addendum B copayment', async () => {
    // 70450-26 at UCSF (facility PE, San Francisco 1.095 / 1.410 / 0.425): 0.93075 + 0.4371 + 0.017 = 1.38485
    //   x 33.4009 = 46.255236365 -> 46.26; 15% = 6.939 -> 6.94.
    // OPPS: 145.53 x 0.6 x 1.9315 + 145.53 x 0.4 = 226.866717 (226.87); 15% of the exact amount = 34.03000755 -> 34.03
    //   (Addendum B's minimum copayment 29.11, wage-adjusted the same way, would be 45.38).
    const { composition: c } = await composeOn(snap(), { code: '70450', ccn: '050454', modifier: ['PT'] });
    expect(c.outpatient_facility?.allowed_fac_payment).toBe(226.87);
    expect(c.beneficiary_cost_sharing).toMatchObject({ deductible_applies: false, coinsurance: 6.94, opps_copayment: 34.03, beneficiary_total: 40.97 });
  });
});

describe('colorectal_screening_pt reads the year\'s section 1833(dd) percent (medicare_yearly_figures)', () => {
  const line = (year: number, figures: RuleLine['figures']): RuleLine => ({ code: '45385', modifiers: ['PT'], year, figures, facility: null, rvu_modifiers: [''] });
  it('is the seeded 15% for CY2025 and CY2026, and a document\'s percent for a later year (10% in 2027, 0 from 2030)', async () => {
    const pct = (l: RuleLine) => colorectalScreeningPt.line!(l)?.cost_sharing?.coinsurance_percent;
    expect(pct(line(2025, await yearFigures(snap(), 2025)))).toBe(15);
    expect(pct(line(2026, await yearFigures(snap(), 2026)))).toBe(15);
    expect(pct(line(2027, figuresOf(2027, { colorectal_pt_coinsurance_percent: '10' })))).toBe(10);
    expect(pct(line(2030, figuresOf(2030, { colorectal_pt_coinsurance_percent: '0' })))).toBe(0);
    // Before section 1833(dd): the deductible is still waived, the coinsurance is the year's standard percent.
    expect(colorectalScreeningPt.line!(line(2021, figuresOf(2021, { part_b_coinsurance_percent: '20' })))?.cost_sharing).toMatchObject({ deductible_applies: false, coinsurance_percent: 20 });
    expect(colorectalScreeningPt.line!({ ...line(2026, null), modifiers: ['33'] })).toBeNull();
  });

  it('prices the 2027 coinsurance on the same amount: 10% of 515.38 = $51.54', () => {
    const figures = figuresOf(2027, { colorectal_pt_coinsurance_percent: '10', part_b_coinsurance_percent: '20' });
    const terms = colorectalScreeningPt.line!(line(2027, figures))!.cost_sharing!;
    expect(costSharing({ code: '45385', year: 2027, figures, deductible_met: false, physician: 515.38, dme: 0, lab: 0, opps: null, terms }).block).toMatchObject({ deductible: 0, coinsurance: 51.54 });
  });

  it('counts no coinsurance in a year whose percent is not loaded, and says so, never another year\'s', () => {
    const terms = colorectalScreeningPt.line!(line(2027, null))!.cost_sharing!;
    expect(terms).toMatchObject({ deductible_applies: false, coinsurance_percent: null });
    const r = costSharing({ code: '45385', year: 2027, figures: null, deductible_met: false, physician: 515.38, dme: 0, lab: 0, opps: null, terms });
    expect(r.block).toMatchObject({ deductible: 0, coinsurance: 0 });
    expect(r.warnings).toEqual(['beneficiary_cost_sharing: no CY2027 modifier PT coinsurance percent is loaded (medicare_yearly_figures); no coinsurance or OPPS copayment is counted']);
  });
});
