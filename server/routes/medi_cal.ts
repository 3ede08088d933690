import { defineRoute, json, type RawInput, type Resolution, type RouteDef } from '../route.js';
import { fiscalYearOf } from '../../datasets/_medi_cal/sheet.js';
import { loadedFiscalYears } from '../../datasets/_medi_cal/years.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { IsoDateSchema } from '../schemas.js';
import { AprDrgBodySchema, AprDrgPaymentSchema } from '../medi_cal/schemas.js';
import { priceStay, type FiscalYearPick } from '../medi_cal/service.js';

/**
 * The state fiscal year whose tables price the stay: the one `discharge_date` falls in (a 422
 * naming the loaded years when it is not loaded), else the latest loaded in all three datasets.
 */
async function resolveFiscalYear(input: RawInput, snapshot: SnapshotReader | null): Promise<Resolution<FiscalYearPick>> {
  const years = loadedFiscalYears(snapshot!);
  const raw = (input.body as Record<string, unknown> | undefined)?.discharge_date;
  if (!IsoDateSchema.safeParse(raw).success) return { issues: [], value: { fiscal_year: years.at(-1) ?? null, source: 'latest_loaded' } };
  const year = fiscalYearOf(raw as string);
  if (years.includes(year)) return { issues: [], value: { fiscal_year: year, source: 'discharge_date' } };
  return {
    issues: [
      {
        loc: ['body', 'discharge_date'],
        msg: `discharge ${raw as string} is in SFY ${year}, whose Medi-Cal APR-DRG tables are not loaded; loaded: ${years.length ? years.map((y) => `SFY ${y}`).join(', ') : 'none'}`,
        type: 'value_error',
        input: raw,
        ctx: { fiscal_year: year, loaded: years },
      },
    ],
    value: { fiscal_year: null, source: 'discharge_date' },
  };
}

/** `POST /v1/medi-cal/apr-drg/payment`: the Medi-Cal APR-DRG price of one inpatient stay. */
export const mediCalRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/v1/medi-cal/apr-drg/payment',
    operationId: 'priceMediCalAprDrg',
    tag: 'knowledge',
    summary: 'Medi-Cal APR-DRG inpatient payment of one stay, with every intermediate value of the DHCS DRG pricing calculator',
    description:
      'Prices an already-grouped APR-DRG and SOI (it does not group diagnoses or procedures) at a hospital of the DHCS list, with the tables of the ' +
      "state fiscal year discharge_date falls in (default: the latest loaded; SFY 2025-26 in the seeds): wage-adjusted base rate, payment relative weight, " +
      'policy adjustor, DRG base payment, transfer per diem and lesser-of (discharge_status a transfer code), estimated cost, high- and low-side cost ' +
      'outliers, add-on, interim claim past the threshold, allowed amount and the lesser of it and the charges. Exact decimals, each money step rounded ' +
      'to cents once. An unknown DRG-SOI or hospital is a 404 with suggestions; a discharge in an SFY not loaded is a 422 naming the loaded years. ' +
      'Answers priced from the illustrative seed tables are degraded, with a warning naming the tables. Worked example (the first example, seeded ' +
      'illustrative tables): wage index 0.9282 <= 1.0, labor share 0.62: 7000 x (0.62 x 0.9282 + 0.38) = 6688.39; payment weight 0.7123 x 0.98 = ' +
      '0.698054; adult, policy adjustor C = 1.00; DRG base payment 6688.39 x 0.698054 = 4668.86; estimated cost 30000 x 0.30 = 9000.00, loss ' +
      '4331.14 below the 60000 threshold: no outlier; allowed 4668.86, less than the charges: payment 4668.86.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // A stay's price depends only on the snapshot and the body: identical questions are answered from the cache.
    cache: true,
    body: json(AprDrgBodySchema, 16 * 1024),
    resolve: resolveFiscalYear,
    response: AprDrgPaymentSchema,
    errors: ['not_found'],
    examples: [
      {
        summary: 'an adult pneumonia stay (APR-DRG 139, SOI 2), no outlier',
        body: { apr_drg: '139-2', oshpd_id: '106999002', length_of_stay: 4, patient_age: 67, total_charges: 30000, discharge_date: '2026-03-02' },
      },
      {
        summary: 'a newborn at a hospital with a designated NICU, transferred on day 2',
        body: { apr_drg: '640', soi: 3, oshpd_id: '106999001', length_of_stay: 2, patient_age: 0, total_charges: 12000, discharge_date: '2025-09-15', discharge_status: '02' },
      },
      { summary: 'a DRG-SOI and an SOI that disagree', status: 422, body: { apr_drg: '640-2', soi: 3, oshpd_id: '106999001', length_of_stay: 2, patient_age: 0, total_charges: 12000 } },
      { summary: 'a discharge in a fiscal year not loaded', status: 422, body: { apr_drg: '139-2', oshpd_id: '106999002', length_of_stay: 4, patient_age: 67, total_charges: 30000, discharge_date: '2024-12-01' } },
      { summary: 'a hospital not on the list', status: 404, body: { apr_drg: '139-2', oshpd_id: '106999009', length_of_stay: 4, patient_age: 67, total_charges: 30000 } },
    ],
    handler: async ({ body, resolved, snapshot, trace }) => ({ ...(await priceStay(snapshot, body, resolved, trace)), reliability: trace.reliability() }),
  }),
];
