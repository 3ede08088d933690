import { z } from 'zod';
import { todayOf } from '../../datasets/_shared/dates.js';
import { findLabFeesIn, isLabCode } from '../../datasets/clfs/queries.js';
import { findDmeFees } from '../../datasets/dmepos/queries.js';
import { findOppsRatesIn } from '../../datasets/opps_addendum_b/queries.js';
import { NotFoundError } from '../../warehouse/errors.js';
import { defineRoute, type RouteDef } from '../route.js';
import { HcpcsSchema, StateSchema } from '../schemas.js';
import { findApcRowsIn } from '../../datasets/opps_addendum_a/queries.js';
import { DmeListSchema, FeeYearFields, LabListSchema, OppsApcSchema, OppsRowSchema, withFeeYear } from '../fee_schedules/schemas.js';
import { apcLinkOf, feeScheduleVersion, toDmeRow, toLabRow, toOppsRow } from '../fee_schedules/service.js';

const CodeParams = z.object({ code: HcpcsSchema });

/** The date rule of the three lookups, in the words of their descriptions. */
const DATE_RULE = 'No release of the year asked: 404 naming the nearest loaded. No year: today\'s year\'s, else the newest loaded (degraded).';

/** OPPS, DMEPOS and clinical lab fee lookups. */
export const feeScheduleRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/fee-schedules/dme/{code}',
    operationId: 'getDmeFees',
    tag: 'fee-schedules',
    summary: 'DMEPOS fee schedule rows of a HCPCS code, per state and modifier pair',
    description: `Rows of the newest DMEPOS release effective in \`year\`. ${DATE_RULE} Rates are null where CMS publishes no fee (0.00 in the file). 404 when no loaded release has the code.`,
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // Without a year, today's year picks the release.
    cache: 'daily',
    params: CodeParams,
    query: withFeeYear(
      z.object({
        state: StateSchema.optional(),
        ...FeeYearFields,
        limit: z.coerce.number().int().min(1).max(200).default(50),
      }),
    ),
    response: DmeListSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'forearm crutches in California', params: { code: 'E0110' }, query: { state: 'CA' } },
      { summary: 'forearm crutches in every state', params: { code: 'E0110' } },
      { summary: 'a limit of zero', status: 422, params: { code: 'E0110' }, query: { limit: '0' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const version = feeScheduleVersion(snapshot, 'dmepos', query, todayOf(now()), trace);
      const r = await findDmeFees(snapshot, params.code, { state: query.state, version, limit: query.limit });
      if (!r.known) throw new NotFoundError(`HCPCS ${params.code} is not on any loaded DMEPOS fee schedule`);
      return {
        results: r.rows.map(toDmeRow),
        total_count: r.total_count,
        reliability: trace.reliability(),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/fee-schedules/opps/{code}',
    operationId: 'getOppsFee',
    tag: 'fee-schedules',
    summary: 'OPPS Addendum B row of a HCPCS code: status indicator, APC, weight, payment rate, copayments',
    description: `From the newest Addendum B release effective in \`year\`. ${DATE_RULE} 404 when that release lacks the code. \`apc_group\`: the APC's Addendum A row of the same year only (else null, \`apc_group_note\` says why).`,
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // Without a year, today's year picks the release.
    cache: 'daily',
    params: CodeParams,
    query: withFeeYear(z.object(FeeYearFields)),
    response: OppsRowSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a hospital outpatient clinic visit', params: { code: 'G0463' } },
      { summary: 'the release of a date of service', params: { code: 'G0463' }, query: { date_of_service: '2026-03-02' } },
      { summary: 'a year that is not a number', status: 422, params: { code: 'G0463' }, query: { year: 'abc' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const version = feeScheduleVersion(snapshot, 'opps_addendum_b', query, todayOf(now()), trace);
      const [row] = version ? await findOppsRatesIn(snapshot, version, params.code) : [];
      if (!row) {
        const where = query.year ? `the ${query.year} OPPS Addendum B` : 'the loaded OPPS Addendum B';
        throw new NotFoundError(`HCPCS ${params.code} is not in ${where}`);
      }
      return { ...toOppsRow(row), ...(await apcLinkOf(snapshot, row, trace)), reliability: trace.reliability() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/fee-schedules/opps-apc/{apc}',
    operationId: 'getOppsApc',
    tag: 'fee-schedules',
    summary: "An APC's OPPS Addendum A row (title, weight, rate, copays)",
    description: `From the newest Addendum A release effective in \`year\`. ${DATE_RULE} 404 when that release lacks the APC.`,
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // Without a year, today's year picks the release.
    cache: 'daily',
    params: z.object({ apc: z.string().regex(/^\d{4}$/, 'an APC is four digits (`0701`, `5012`)').describe('Ambulatory Payment Classification, four digits with leading zeros') }),
    query: withFeeYear(z.object(FeeYearFields)),
    response: OppsApcSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a drug APC of CY2025', params: { apc: '0706' }, query: { year: '2025' } },
      { summary: 'a year no Addendum A release is loaded for', status: 404, params: { apc: '0706' }, query: { year: '2019' } },
      { summary: 'an APC that is not four digits', status: 422, params: { apc: '706' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const version = feeScheduleVersion(snapshot, 'opps_addendum_a', query, todayOf(now()), trace);
      const [row] = version ? await findApcRowsIn(snapshot, version, params.apc) : [];
      if (!row) throw new NotFoundError(version ? `APC ${params.apc} is not in the OPPS Addendum A release ${version}` : 'no OPPS Addendum A release is loaded');
      return { ...row, reliability: trace.reliability() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/fee-schedules/lab/{code}',
    operationId: 'getLabFee',
    tag: 'fee-schedules',
    summary: 'Clinical Laboratory Fee Schedule national limits of a HCPCS code (plain and QW)',
    description: `From the newest CLFS quarter effective in \`year\`. ${DATE_RULE} \`rate\` is null for codes not nationally priced (indicator L). 404 when no loaded quarter has the code.`,
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // Without a year, today's year picks the release.
    cache: 'daily',
    params: CodeParams,
    query: withFeeYear(z.object(FeeYearFields)),
    response: LabListSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a comprehensive metabolic panel', params: { code: '80053' } },
      { summary: 'the quarter of a date of service', params: { code: '80053' }, query: { date_of_service: '2026-08-14' } },
      { summary: 'a year and a date of service that disagree', status: 422, params: { code: '80053' }, query: { year: '2025', date_of_service: '2026-08-14' } },
      { summary: 'too short to be a code', status: 422, params: { code: '8005' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const version = feeScheduleVersion(snapshot, 'clfs', query, todayOf(now()), trace);
      const rows = version ? await findLabFeesIn(snapshot, version, params.code) : [];
      if (rows.length === 0 && !(await isLabCode(snapshot, params.code))) {
        throw new NotFoundError(`HCPCS ${params.code} is not on any loaded Clinical Laboratory Fee Schedule`);
      }
      return {
        results: rows.map(toLabRow),
        total_count: rows.length,
        reliability: trace.reliability(),
      };
    },
  }),
];
