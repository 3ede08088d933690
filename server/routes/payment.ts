import { z } from 'zod';
import { defineRoute, type RouteDef } from '../route.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { HcpcsSchema } from '../schemas.js';
import { PaymentCompositionSchema, PaymentQuerySchema } from '../payment/schemas.js';
import { paymentFor, requirePaymentYear } from '../payment/service.js';

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
      'facility or non-facility PE-RVU. Amounts are exact and rounded to cents once; estimated_payment is the sum of the applicable blocks. ' +
      'A date_of_service year no priced schedule has (RVUs; at a ccn also OPPS, CLFS, DMEPOS): 404 naming the nearest loaded. ' +
      "Without one: today's year (degraded where a schedule lacks it).",
    auth: { scope: 'knowledge' },
    reads: 'snapshot+tenant',
    // Without date_of_service, today's year picks the conversion factor and caps.
    cache: 'daily',
    params: z.object({ code: HcpcsSchema }),
    query: PaymentQuerySchema,
    response: PaymentCompositionSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'an office visit in Manhattan (non-QPP)', params: { code: '99213' }, query: { locality: '1320201', date_of_service: '2025-11-03' } },
      { summary: 'the same visit, dated today', params: { code: '99213' }, query: { locality: '1320201' } },
      { summary: 'a CCN too short', status: 422, params: { code: '99213' }, query: { ccn: '12' } },
      { summary: 'a code with no payment data', status: 404, params: { code: 'ZZZZZ' }, query: { locality: '1320201' } },
      { summary: 'a date of service in a year no loaded physician fee schedule release covers', status: 404, params: { code: '99213' }, query: { locality: '1320201', date_of_service: '2027-03-02' } },
    ],
    // Without ccn the answer does not depend on the tenant: one cached answer serves every tenant.
    tenantScoped: ({ query }) => query.ccn !== undefined,
    handler: async ({ params, query, snapshot, tenant, trace, now }) => {
      requirePaymentYear(snapshot, query, todayOf(now()));
      const composition = await paymentFor(snapshot, query.ccn ? tenant : null, { ...query, code: params.code }, todayOf(now()), trace);
      return { ...composition, reliability: trace.reliability() };
    },
  }),
];
