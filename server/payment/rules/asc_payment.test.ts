import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSeedSnapshot } from '../../../testing/datasets.js';
import { composeOn } from '../../../testing/payment.js';
import { ascAllowed, ascBlock, ascPayment } from './asc_payment.js';

/*
 * asc_payment: at place of service 24 the ASC is paid the Addendum AA national rate (42 CFR 416.171)
 * with its labor-related 50% adjusted by the IPPS wage index of its CBSA (42 CFR 416.172(c)):
 * rate x (0.50 x wage index + 0.50), rounded to cents once. Rows of the seed (real rows of
 * 508-Version-Jan-2025-ASC-AA.csv) and wage indexes of the wage_index seed (illustrative):
 * - 66984, A2, $1,214.31 at CBSA 41884 (1.9315): 1214.31 x 1.46575 = 1779.8748825 -> $1,779.87
 * - 27447, J8, "$9,255.60" at CBSA 35614 (1.3456): 9255.60 x 1.1728 = 10854.96768 -> $10,854.97
 * - 45378, A2, $489.47 at CBSA 13820 (0.8283): 489.47 x 0.91415 = 447.4490005 -> $447.45
 * - 22552, N1, blank weight and rate: packaged, no amount.
 */
const SNAP_IDS = ['mpfs_rvu', 'gpci', 'facilities', 'zip_locality', 'locality_county', 'cbsa_county', 'wage_index', 'medicare_yearly_figures', 'asc_addendum_aa'];
let snap: Awaited<ReturnType<typeof openSeedSnapshot>>;
beforeAll(async () => {
  snap = await openSeedSnapshot(SNAP_IDS);
});
afterAll(() => snap?.close());

const DOS = '2025-11-03';
const at = (code: string, q: { cbsa?: string; zip?: string; place_of_service?: string; date_of_service?: string } = {}) => composeOn(snap, { code, place_of_service: '24', date_of_service: DOS, ...q });

describe('asc_payment: the ASC rate at place of service 24, wage-adjusted at the CBSA', () => {
  it('pays 66984 at CBSA 41884 $1,779.87 (1214.31 x (0.5 x 1.9315 + 0.5)), degraded because the wage index seed is illustrative', async () => {
    const { composition: c, warnings, degraded } = await at('66984', { cbsa: '41884' });
    expect(c.asc).toEqual({
      allowed_asc_payment: 1779.87, national_rate: 1214.31, payment_weight: 22.1206, payment_indicator: 'A2', payment_indicator_meaning: expect.stringMatching(/^surgical procedure on the ASC list/),
      multiple_procedure_discount: true, wage_adjusted: true, labor_share: 0.5, cbsa: '41884', wage_index: 1.9315, release: '2025-01',
      citations: [expect.stringMatching(/^42 CFR 416\.171/), expect.stringMatching(/^42 CFR 416\.172\(c\)/), 'CMS ASC Addendum AA, release 2025-01 (asc_addendum_aa 2025-01)'],
    });
    expect(c.calculation).toContain('asc: 1214.31 x (0.5 x 1.9315 + 0.5) = 1779.8748825 (42 CFR 416.172(c) (the labor-related 50% of the ASC rate is adjusted by the IPPS wage index of the CBSA where the ASC is located); CBSA 41884; CMS ASC Addendum AA, release 2025-01 (asc_addendum_aa 2025-01))');
    expect(degraded).toBe(true);
    expect(warnings).toContainEqual(expect.stringMatching(/^asc: the wage index of CBSA 41884 is from wage_index FY2026, an illustrative seed/));
    // The ASC bills its own claim: the physician's amount alone is the line's estimate.
    expect(c.applicable_blocks).toEqual(['physician']);
    expect(c.estimated_payment).toBe(c.physician!.allowed_phy_payment);
  });

  it('pays 27447 ("$9,255.60", J8) at CBSA 35614 $10,854.97 and 45378 at CBSA 13820 $447.45', async () => {
    expect((await at('27447', { cbsa: '35614' })).composition.asc).toMatchObject({ allowed_asc_payment: 10854.97, national_rate: 9255.6, payment_indicator: 'J8', wage_index: 1.3456 });
    expect((await at('45378', { cbsa: '13820' })).composition.asc).toMatchObject({ allowed_asc_payment: 447.45, national_rate: 489.47, wage_index: 0.8283 });
  });

  it('answers the national rate, not wage-adjusted, with a warning when no cbsa is given', async () => {
    const { composition: c, warnings } = await at('27447');
    expect(c.asc).toMatchObject({ allowed_asc_payment: 9255.6, wage_adjusted: false, cbsa: null, wage_index: null });
    expect(c.asc!.citations).not.toContainEqual(expect.stringMatching(/416\.172/));
    expect(warnings).toContainEqual(expect.stringMatching(/^asc: no cbsa, ccn or zip given: the national ASC rate, not wage-adjusted/));
  });

  it('a ZIP whose locality spans two CBSAs names neither: the national rate, degraded, the CBSAs named', async () => {
    // Locality 0111205 is San Francisco, Alameda, Contra Costa and San Mateo: CBSAs 36084 and 41884.
    const { composition: c, warnings, degraded } = await at('66984', { zip: '94143' });
    expect(c.asc).toMatchObject({ allowed_asc_payment: 1214.31, wage_adjusted: false });
    expect(degraded).toBe(true);
    expect(warnings).toContainEqual(expect.stringMatching(/^asc: ZIP 94143 \(CA, payment locality 0111205\): its locality's counties lie in CBSAs 36084, 41884, and the ZIP does not say which/));
  });

  it('a CBSA not in the wage index: the national rate, degraded, naming it', async () => {
    const { composition: c, warnings, degraded } = await at('66984', { cbsa: '99999' });
    expect(c.asc).toMatchObject({ allowed_asc_payment: 1214.31, wage_adjusted: false });
    expect(degraded).toBe(true);
    expect(warnings).toContainEqual(expect.stringMatching(/^asc: CBSA 99999 is not in wage_index FY2026/));
  });

  it('gives a packaged code (22552, N1) no amount, never $0, with the indicator\'s meaning', async () => {
    const { composition: c, warnings } = await at('22552', { cbsa: '41884' });
    expect(c.asc).toMatchObject({ allowed_asc_payment: null, national_rate: null, payment_indicator: 'N1', payment_indicator_meaning: 'packaged service or item; no separate payment made', multiple_procedure_discount: false, wage_adjusted: false });
    expect(warnings).toContainEqual(expect.stringMatching(/^asc: 22552 has ASC payment indicator N1 \(packaged service or item; no separate payment made\)/));
  });

  it('says a code off the ASC list (99213) has no ASC payment, and adds no block outside place of service 24', async () => {
    const { composition: c, warnings } = await at('99213', { cbsa: '41884' });
    expect(c.asc).toMatchObject({ allowed_asc_payment: null, payment_indicator: null, payment_indicator_meaning: expect.stringMatching(/^not on the ASC covered surgical procedures list of Addendum AA 2025-01/) });
    expect(warnings).toContainEqual(expect.stringMatching(/^asc: 99213 is not on the ASC covered surgical procedures list/));
    expect((await at('66984', { cbsa: '41884', place_of_service: '22' })).composition.asc).toBeNull();
  });

  it('prices a date of a year without a release from the nearest one, degraded', async () => {
    const { composition: c, warnings } = await at('66984', { cbsa: '41884', date_of_service: '2026-03-02' });
    expect(c.asc).toMatchObject({ release: '2025-01', allowed_asc_payment: 1779.87 });
    expect(warnings).toContainEqual(expect.stringMatching(/^asc: no asc_addendum_aa release of 2026 is loaded for date of service 2026-03-02; answered from the nearest release 2025-01/));
  });

  it('computes exactly and rounds once (pure)', () => {
    expect(ascAllowed('489.47', '0.8283')).toMatchObject({ allowed: 447.45 });
    expect(ascAllowed('489.47', '0.8283').exact.toString()).toBe('447.4490005');
    // Rounded once, at the end: 2.01 x (0.5 x 0.99 + 0.5) = 1.99995 -> 2.00.
    expect(ascAllowed('2.01', '0.99').allowed).toBe(2);
    const calc: string[] = [];
    expect(ascBlock({ release: '2025-01', row: { payment_indicator: 'P3', payment_weight: null, payment_rate: 36.23, multiple_procedure_discount: true }, cbsa: null, wage_index: null }, calc)).toMatchObject({ allowed_asc_payment: 36.23, wage_adjusted: false });
    expect(calc).toEqual([]);
    expect(ascPayment.id).toBe('asc_payment');
  });
});
