import { todayOf } from '../../datasets/_shared/dates.js';
import { ClaimCheckQuerySchema, ClaimsCheckSchema, type ClaimsCheck } from '../claims/schemas.js';
import type { StreamedJson } from '../json_bytes.js';
import type { RemitExplainer } from '../remittances/pool.js';
import { defineRoute, raw, type RouteDef } from '../route.js';

/** `RCM_REMIT_MAX_MB` (bytes): the largest 837 taken, as for an 835; the explainer: the remittance worker pool, which checks claims too. */
export interface ClaimRouteDeps {
  maxBytes: number;
  explainer: RemitExplainer;
}

const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

const EXAMPLE_837 = [
  'ISA*00*          *00*          *ZZ*SUBMITTER      *ZZ*RECEIVER       *251103*1200*^*00501*000000001*0*T*:~',
  'GS*HC*SUBMITTER*RECEIVER*20251103*1200*1*X*005010X222A1~',
  'ST*837*0001*005010X222A1~',
  'BHT*0019*00*0001*20251103*1200*CH~',
  'NM1*41*2*EXAMPLE CLINIC*****46*SUB01~',
  'NM1*40*2*MEDICARE*****46*RCV01~',
  'HL*1**20*1~',
  'NM1*85*2*EXAMPLE CLINIC*****XX*1234567893~',
  'N3*1 MAIN ST~',
  'N4*NEW YORK*NY*10001~',
  'REF*EI*123456789~',
  'HL*2*1*22*0~',
  'SBR*P*18*******MB~',
  'NM1*IL*1*DOE*JANE****MI*1EG4TE5MK72~',
  'NM1*PR*2*MEDICARE*****PI*13202~',
  'CLM*PCN001*250***11:B:1*Y*A*Y*Y~',
  'HI*ABK:M47816~',
  'LX*1~',
  'SV1*HC:99213:25*150*UN*1***1~',
  'DTP*472*D8*20251103~',
  'LX*2~',
  'SV1*HC:64493*100*UN*1***1~',
  'DTP*472*D8*20251103~',
  'SE*21*0001~',
  'GE*1*1~',
  'IEA*1*000000001~',
].join('\n');

/**
 * Claims: an X12 837 checked before it is sent (each line's likely denial, why, the fix, and the
 * expected allowed amount). The body carries PHI: never cached, never logged, never echoed.
 */
export function claimRoutes(d: ClaimRouteDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/claims/check',
      operationId: 'checkClaims',
      tag: 'knowledge',
      summary: "Check an X12 837 before it is sent: each line's likely denial, the fix, the expected allowed amount",
      description:
        'The 837 (X222A1 or X223A2) as the body, up to RCM_REMIT_MAX_MB, on the remittance threads. Checks structure, ICD-10-CM, NCCI as POST /v1/ncci/validate, Medicare coverage, duplicates, global periods, NDCs, prior auth, timely filing. ' +
        'Each finding: `if_sent` (group, CARC, RARC, next step), `fix`, citations, segment. No data in force: `unchecked`. MCP: the first 100 claims. PHI: nothing is cached, logged or stored.',
      auth: { scope: 'knowledge' },
      reads: 'snapshot',
      cache: false,
      body: raw('application/edi-x12', d.maxBytes, undefined, ['text/plain'], { name: 'claims', description: 'the X12 837 as text (up to 1 MB here; larger through REST or the CLI)' }),
      query: ClaimCheckQuerySchema,
      response: ClaimsCheckSchema,
      examples: [
        { summary: 'a Medicare claim: an office visit and a facet joint injection for lumbar spondylosis, priced in Manhattan', body: EXAMPLE_837, query: { as_of: '2025-11-10', locality: '1320201' } },
        { summary: 'an 835 remittance is not a claim', status: 422, body: 'ISA*00*          *00*          *ZZ*A              *ZZ*B              *260105*1200*^*00501*000000001*0*T*:~GS*HP*A*B*20260105*1200*1*X*005010X221A1~ST*835*0001~BPR*I*0*C*NON************20260105~TRN*1*1*1~SE*4*0001~GE*1*1~IEA*1*000000001~' },
        { summary: 'no key', status: 401, key: 'none', body: EXAMPLE_837 },
      ],
      // A playground key's file while the playground's thread is busy, or past its size: refused unread.
      preflight: ({ auth, declaredBytes }) => d.explainer.preflight({ tenant: auth?.tenant_id ?? '', playground: auth?.ephemeral === true }, declaredBytes),
      handler: async ({ body, query, snapshot, auth, now, transport, header }) => {
        const csv = transport !== 'mcp' && (query.format === 'csv' || (query.format === undefined && /\btext\/csv\b/i.test(header('accept') ?? '')));
        // Off the event loop (the remittance worker pool), streamed at the reader's pace.
        const answer = await d.explainer.explain({
          caller: { tenant: auth?.tenant_id ?? '', playground: auth?.ephemeral === true },
          snapshot,
          bytes: body,
          spec: { task: 'check', asOf: query.as_of ?? todayOf(now()), at: now().getTime(), where: { ccn: query.ccn, locality: query.locality }, testKey: auth?.key_type === 'test', mode: transport === 'mcp' ? 'summary' : 'full', format: csv ? 'csv' : 'json', redact: false },
        });
        return (csv ? answer.as(CSV_TYPE) : answer) as StreamedJson<ClaimsCheck>;
      },
    }),
  ];
}
