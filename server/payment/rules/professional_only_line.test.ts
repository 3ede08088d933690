import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { PROFESSIONAL_ONLY_MODIFIERS, professionalOnlyLine } from './professional_only_line.js';

/*
 * Worked by hand at UCSF (050454; San Francisco GPCIs 1.095 / 1.410 / 0.425; CBSA 41884 wage index
 * 1.9315; CY2026 non-QPP CF 33.4009) from the seeds:
 *   70450-26 facility PE (PPRRVU2025_Oct.csv): 0.85 x 1.095 + 0.31 x 1.410 + 0.04 x 0.425
 *     = 0.93075 + 0.4371 + 0.017 = 1.38485 x 33.4009 = 46.255236365 -> $46.26.
 *   70450 OPPS (January 2026 Addendum B, Q3 APC 5522 $145.53): 145.53 x 0.6 x 1.9315 + 145.53 x 0.4
 *     = 168.654717 + 58.212 = 226.866717 -> $226.87, the hospital's, on its own claim.
 *   A -26 line is paid $46.26 (was 46.26 + 226.87 = 273.13); an -80 line has no physician amount
 *   (ASST SURG 0: documentation required) and so $0 (was the hospital's $226.87).
 */
const snap = usePaymentSnapshot();

describe('professional_only_line: professional-only lines at a hospital', () => {
  it('answers 70450-26 at UCSF with the physician block only: $46.26, the OPPS $226.87 for reference', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '70450', ccn: '050454', modifier: ['26'] });
    expect(c).toMatchObject({ estimated_payment: 46.26, applicable_blocks: ['physician'] });
    expect(c.outpatient_facility).toMatchObject({ allowed_fac_payment: 226.87, informational: true });
    // No OPPS copayment on a line that bills no OPPS amount; 20% of 46.26 = 9.252 -> 9.25.
    expect(c.beneficiary_cost_sharing).toMatchObject({ coinsurance: 9.25, opps_copayment: null, program_payment: 37.01 });
    expect(warnings.join(' ')).toMatch(/modifier 26 \(professional component\): the claim line bills the professional service only; the hospital is paid its OPPS amount for 70450 on its own claim.*42 CFR 419.22\(a\).*not in estimated_payment/);
  });

  it('never adds the hospital OPPS amount to an assistant, co-surgeon or team line: 70450-80 at UCSF is $0, not $226.87', async () => {
    for (const m of ['80', '81', '82', 'AS', '62', '66']) {
      const { composition: c } = await composeOn(snap(), { code: '70450', ccn: '050454', modifier: [m] });
      expect(c.estimated_payment, m).toBe(0);
      expect(c.applicable_blocks, m).toEqual([]);
      expect(c.outpatient_facility, m).toMatchObject({ allowed_fac_payment: 226.87, informational: true });
    }
  });

  it('still adds the OPPS amount to a line without such a modifier: 46.26 + 226.87 = $273.13', async () => {
    const { composition: c } = await composeOn(snap(), { code: '70450', ccn: '050454' });
    expect(c).toMatchObject({ estimated_payment: 273.13, applicable_blocks: ['physician', 'outpatient_facility'] });
  });

  it('names each modifier with its manual section, and needs a facility', () => {
    expect(Object.keys(PROFESSIONAL_ONLY_MODIFIERS).sort()).toEqual(['26', '62', '66', '80', '81', '82', 'AS']);
    expect(PROFESSIONAL_ONLY_MODIFIERS['80']!.citation).toMatch(/section 20.4.3/);
    expect(PROFESSIONAL_ONLY_MODIFIERS['26']!.citation).toMatch(/ch. 13 section 20/);
    expect(professionalOnlyLine.line!({ code: '70450', modifiers: ['26'], year: 2026, figures: null, facility: null, rvu_modifiers: [''] })).toBeNull();
  });
});
