import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { resolveFacility } from '../../server/facilities/service.js';
import type { PaymentRequest } from '../../server/payment/service.js';
import { composePaymentFor } from '../../server/payment/service.js';
import { Trace } from '../../server/trace.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { openSeedSnapshot, REPO_ROOT } from './datasets.js';

/** The day the payment rule tests price on (a CY2026 service: the CY2026 deductibles and factor). */
const RULES_TODAY = '2026-03-02';

/**
 * The seeds payment composition reads, plus three real facilities of the Care Compare file that
 * the seeds lack (test/fixtures/payment_rules/): 01014F (a VA hospital), 010779 (a rural emergency
 * hospital) and 210002 (a Maryland hospital).
 */
function openPaymentSnapshot() {
  return openSeedSnapshot(['mpfs_rvu', 'gpci', 'facilities', 'zip_locality', 'locality_county', 'cbsa_county', 'wage_index', 'opps_addendum_b', 'dmepos', 'dmepos_rural_zip', 'clfs'], {
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
