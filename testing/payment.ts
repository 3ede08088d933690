import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { YearlyFigure, YearlyFigureRow } from '../datasets/medicare_yearly_figures/dataset.js';
import { yearFiguresOf, type YearFigures } from '../datasets/medicare_yearly_figures/queries.js';
import { resolveFacility } from '../server/facilities/service.js';
import type { PaymentRequest } from '../server/payment/service.js';
import { composePaymentFor } from '../server/payment/service.js';
import { Trace } from '../server/trace.js';
import type { SnapshotReader } from '../warehouse/snapshot.js';
import { openSeedSnapshot, REPO_ROOT } from './datasets.js';

/** The day the payment rule tests price on (a CY2026 service: the CY2026 deductibles and factor). */
const RULES_TODAY = '2026-03-02';

/**
 * The seeds payment composition reads (the Medicare yearly figures among them), plus three real
 * facilities of the Care Compare file that the seeds lack (test/fixtures/payment_rules/): 01014F
 * (a VA hospital), 010779 (a rural emergency hospital) and 210002 (a Maryland hospital).
 */
function openPaymentSnapshot() {
  return openSeedSnapshot(['mpfs_rvu', 'gpci', 'facilities', 'zip_locality', 'locality_county', 'cbsa_county', 'wage_index', 'opps_addendum_b', 'dmepos', 'dmepos_rural_zip', 'clfs', 'medicare_yearly_figures'], {
    facilities: [join(REPO_ROOT, 'test/fixtures/payment_rules/Hospital_General_Information_2025-10.csv')],
  });
}

/** Opens the payment snapshot before the file's tests and closes it after them: call it at the top of a test file. */
export function usePaymentSnapshot(): () => SnapshotReader {
  let snap: Awaited<ReturnType<typeof openPaymentSnapshot>> | undefined;
  beforeAll(async () => {
    snap = await openPaymentSnapshot();
  });
  afterAll(() => snap?.close());
  return () => snap!;
}

/** The payment route's composition for a query (`ccn` resolved as the route does, without a tenant), with its trace. */
export async function composeOn(snap: SnapshotReader, q: Omit<PaymentRequest, 'today' | 'facility'> & { today?: string }) {
  const trace = new Trace(snap, () => new Date(`${RULES_TODAY}T00:00:00Z`));
  const facility = q.ccn ? await resolveFacility(snap, null, q.ccn, 'reference') : null;
  const composition = await composePaymentFor(snap, { today: RULES_TODAY, date_of_service: RULES_TODAY, ...q, facility }, trace);
  return { composition, warnings: trace.warnings, degraded: trace.degraded };
}

/**
 * A year's Medicare figures as a calculator takes them, written by hand (a year the seeds have no
 * document for, or a figure they lack): each value exact, cited `test`.
 */
export function figuresOf(year: number, values: Partial<Record<YearlyFigure, string>>, preventive: readonly string[] = []): YearFigures {
  const citation = { title: `test figures of CY${year}`, url: 'https://www.cms.gov/', retrieved: '2026-12-06' };
  const rows = new Map(Object.entries(values).map(([figure, value]) => [figure as YearlyFigure, { year, figure, value, citation } as YearlyFigureRow]));
  return yearFiguresOf('test', year, rows, new Map([['preventive_no_cost_sharing', new Set(preventive)]]));
}
