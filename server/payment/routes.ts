import { z } from 'zod';
import { defineRoute, type RouteDef } from '../route.js';
import { todayOf } from '../calendar.js';
import { HcpcsSchema } from '../schemas.js';
import { PaymentCompositionSchema, PaymentQuerySchema } from './schemas.js';
import { composePaymentFor } from './service.js';

/** `GET /v1/codes/{code}/payment`: the payment composition of a code (spec rules 1-5). */
export const paymentRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/codes/{code}/payment',
    operationId: 'getCodePayment',
    tag: 'codes',
    summary: 'Payment composition: physician (MPFS), outpatient facility (OPPS), lab (CLFS) and DME amounts for a code',
    description:
      'With ccn the facility geography drives GPCI (ZIP/county to locality), wage index (CBSA) and the rural flag, and every block is priced; ' +
      'without ccn only the physician block, in `locality` (7 digits) or nationally. qpp_flag (0/1) overrides qpp. place_of_service pins the ' +
      'facility or non-facility PE-RVU. Amounts are exact and rounded to cents once; estimated_payment is the sum of the applicable blocks.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot+tenant',
    // Without date_of_service, today's year picks the conversion factor and caps.
    cache: 'daily',
    params: z.object({ code: HcpcsSchema }),
    query: PaymentQuerySchema,
    response: PaymentCompositionSchema,
    errors: [404],
    examples: [
      { summary: 'an office visit in Manhattan (non-QPP)', params: { code: '99213' }, query: { locality: '1320201', date_of_service: '2026-03-02' } },
    ],
    handler: async ({ params, query, snapshot, tenant, reliability, now }) => {
      // The tenant's registration of the CCN: facility.registered, its facility type and default place of service.
      const reg = query.ccn ? await tenant.facilities.get(query.ccn) : null;
      const pos = query.place_of_service ?? (reg?.is_active ? (reg.place_of_service ?? undefined) : undefined);
      const { composition, warnings, used, degraded } = await composePaymentFor(snapshot, {
        code: params.code,
        ...query,
        today: todayOf(now()),
        place_of_service: pos,
        registration: reg ? { active: reg.is_active, facility_type: reg.is_active ? reg.facility_type : null } : null,
      });
      if (pos !== undefined && query.place_of_service === undefined) warnings.push(`place of service ${pos} from your registration of ${query.ccn}`);
      return { ...composition, reliability: reliability(used, { warnings, degraded }) };
    },
  }),
];
