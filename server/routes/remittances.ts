import { todayOf } from '../../datasets/_shared/dates.js';
import type { StreamedJson } from '../json_bytes.js';
import type { RemitExplainer } from '../remittances/pool.js';
import { RemitExplanationSchema, RemitQuerySchema, type RemitExplanation } from '../remittances/schemas.js';
import { defineRoute, raw, type RouteDef } from '../route.js';

/** `RCM_REMIT_MAX_MB` (bytes): the largest 835 taken; the explainer: the worker pool (or one in process), its limits and budget. */
export interface RemittanceRouteDeps {
  maxBytes: number;
  explainer: RemitExplainer;
}

const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

/** `RCM_REMIT_MAX_MB` default: the largest 835 accepted over HTTP (larger files go through the CLI). */
export const DEFAULT_REMIT_MAX_BYTES = 25 * 1024 * 1024;

const EXAMPLE_835 = [
  'ISA*00*          *00*          *ZZ*PAYERID        *ZZ*PROVIDERID     *260105*1200*^*00501*000000001*0*T*:~',
  'GS*HP*PAYERID*PROVIDERID*20260105*1200*1*X*005010X221A1~',
  'ST*835*0001~',
  'BPR*I*80.61*C*ACH*CCP*01*999999999*DA*123456*1234567890**01*999988880*DA*98765*20260105~',
  'TRN*1*EFT0001*1234567890~',
  'N1*PR*MEDICARE~',
  'N1*PE*EXAMPLE CLINIC*XX*1234567893~',
  'LX*1~',
  'CLP*PCN001*1*150*80.61*20*MB*ICN0001*11~',
  'SVC*HC:99213*150*80.61**1~',
  'DTM*472*20251201~',
  'CAS*CO*45*49.39~',
  'CAS*PR*1*20~',
  'SE*12*0001~',
  'GE*1*1~',
  'IEA*1*000000001~',
].join('\n');

/**
 * Remittances: an X12 835 explained (codes, whose amount, next step and deadline, balancing).
 * The body carries PHI: never cached, never logged, never echoed in an error.
 */
export function remittanceRoutes(d: RemittanceRouteDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/remittances/explain',
      operationId: 'explainRemittance',
      tag: 'knowledge',
      summary: 'Explain an X12 835 remittance (or a 999 / 277CA acknowledgment): every adjustment with its meaning, who owes it, what to do by when, and the balancing findings',
      description:
        'Send the 835 itself as the body (application/edi-x12 or text/plain), up to RCM_REMIT_MAX_MB (default 25), RCM_REMIT_MAX_SEGMENTS segments and RCM_REMIT_MAX_CLAIMS claims (413 naming the limit past any); a playground key up to RCM_REMIT_PLAYGROUND_MAX_MB (default 1), one explanation at a time for every playground key. Explanations run on worker threads, tenants in turns; past RCM_REMIT_CONCURRENT_SEGMENTS of segments being explained at once, or a full queue, 503 service_busy with Retry-After. The answer is streamed (chunked) at the reader\'s pace; a reader that takes nothing for RCM_WRITE_TIMEOUT_MS is cut. As an MCP tool it answers a bounded summary (`truncated`). ' +
        'Separators come from the ISA header (or `*`, `:`, `~` without one); a BOM, prose before the ISA and several interchanges are read. ' +
        'A 999 or 277CA acknowledgment is explained too (`acknowledgments`: each transaction or claim accepted or rejected before adjudication, every error code in words, and for a rejection: correct and resubmit, no appeal, by the payer\'s filing deadline). A 4010 835, an 837 or a file cut short (no SE, GE or IEA) is 422 naming what it is or what is missing, by segment position. ' +
        'Each adjustment carries the CARC text as of the remittance date and its next step from the denial rules table (docs/denial-rules.md), dated by the payer\'s rules where N1*PR (or a Medicare contractor\'s number or name, or CLP06) names the payer. ' +
        'Each HCPCS line is linked where it applies: `ncci` on a bundling denial (a CARC of class bundling, RARC M80 or N20: the PTP edit of a code on the same claim and date that has the line as column 2, with its modifier indicator and whether it was in force; an add-on denial, B15: the add-on edit\'s primary codes), `mue` on a units denial (class units, RARC N362: the MUE value and MAI on the date), `coverage` on a coverage denial (class coverage: the documents listing the code where the payee is), and `pricing`: a Medicare professional line\'s allowed amount against the physician fee schedule (the payment composition of GET /v1/codes/{code}/payment) at the payee\'s location (`ccn` or `locality`, else the payee NPI\'s practice ZIP in the local NPPES copy), or an outpatient hospital line\'s against the OPPS at the hospital\'s `ccn`; else not priced, with the reason. ' +
        'Each claim answers the identifiers a poster matches on (patient and insured names and member ids, the corrected name, the rendering provider, REF*F8 and the other references, CLP09 and the DRG), its AMT, QTY, MIA and MOA amounts by their TR3 names and its interest; each payment its `reconciliation` (BPR02 signed by BPR03, the claims\' payments, each provider adjustment added to or withheld from the payment, in words, and whether they balance; a notification moves no money). Reversals (CLP02 22) are paired with their corrections (`reversal_of`, `corrected_by`, `net_paid_change`, and `reversals`); a copy of a remittance already read (TRN02, TRN03, signed BPR02) carries `duplicate_of` and stays out of the totals and worklist. Validation findings name their segment: group codes, CARC usage notes, a seventh CAS triplet, required CLP/SVC elements, dates, CLP05 against the PR adjustments, NPI check digits. ' +
        '`format=posting-csv` (or `Accept: text/csv`) answers the posting file: one row per claim, service line, adjustment and provider adjustment (RFC 4180, plain decimals, lists joined with `|`); `format=worklist-csv` the worklist. `redact=true` replaces names, ids and claim numbers with tokens stable within the answer (redacted, not de-identified: dates remain). ' +
        'Multipart with the 837s as `claims` parts: `loop` marks each line against the claim check\'s prediction. ' +
        'The file carries PHI: the answer is never cached, nothing of it is logged or stored, and errors never echo it. Test keys must not carry PHI.',
      auth: { scope: 'knowledge' },
      reads: 'snapshot',
      cache: false,
      // As an MCP tool, the 835 text is the `remittance` argument (within MCP's 1 MB request).
      body: raw('application/edi-x12', d.maxBytes, 'remittance', ['text/plain'], { name: 'remittance', description: 'the X12 835 itself, as text (within the 1 MB of an MCP request; larger files through the REST route or the CLI)' }, [
        { name: 'claims', description: 'the X12 837s the remittance\'s claims were sent as, one or more: each is checked as POST /v1/claims/check checks it and the answer\'s `loop` marks each remitted line against its prediction (JSON only)' },
      ]),
      query: RemitQuerySchema,
      response: RemitExplanationSchema,
      examples: [
        { summary: 'a Medicare remittance: CO-45 written off, PR-1 deductible billed to the patient, the allowed amount as the Manhattan fee schedule pays', body: EXAMPLE_835, query: { as_of: '2026-01-10', locality: '1320201' } },
        { summary: 'a 999 acknowledgment rejecting a submitted 837 for a missing claim frequency code', body: 'ISA*00*          *00*          *ZZ*A              *ZZ*B              *260105*1200*^*00501*000000001*0*T*:~GS*FA*A*B*20260105*1200*1*X*005010X231A1~ST*999*0001*005010X231A1~AK1*HC*1*005010X222A1~AK2*837*0001*005010X222A1~IK3*CLM*22*2300*8~CTX*CLM01:PCN001~IK4*5:3*1325*1~IK5*R*5~AK9*R*1*1*0~SE*10*0001~GE*1*1~IEA*1*000000001~' },
        { summary: 'an 837 claim is not a remittance', status: 422, body: 'ISA*00*          *00*          *ZZ*A              *ZZ*B              *260105*1200*^*00501*000000001*0*T*:~GS*HC*A*B*20260105*1200*1*X*005010X222A1~ST*837*0001*005010X222A1~BHT*0019*00*1*20260105*1200*CH~SE*3*0001~GE*1*1~IEA*1*000000001~' },
        { summary: 'no key', status: 401, key: 'none', body: EXAMPLE_835 },
      ],
      // A playground key's file while the playground's thread is busy, or past its size: refused unread.
      preflight: ({ auth, declaredBytes }) => d.explainer.preflight({ tenant: auth?.tenant_id ?? '', playground: auth?.ephemeral === true }, declaredBytes),
      handler: async ({ body, parts, query, snapshot, auth, now, transport, header }) => {
        // With the 837s (multipart `claims` parts): the loop closed, as JSON.
        const claims = transport === 'http' ? (parts.claims ?? []) : [];
        // An MCP call answers the bounded JSON summary whatever it asks; REST the format asked (or Accept: text/csv).
        const format = transport === 'mcp' ? 'json' : (query.format ?? (/\btext\/csv\b/i.test(header('accept') ?? '') ? 'posting-csv' : 'json'));
        // Off the event loop (the worker pool), streamed at the reader's pace.
        const answer = await d.explainer.explain({
          caller: { tenant: auth?.tenant_id ?? '', playground: auth?.ephemeral === true },
          snapshot,
          bytes: body,
          spec: { ...(claims.length ? { task: 'loop' as const, claims: claims.map((b) => new Uint8Array(b)) } : {}), asOf: query.as_of ?? todayOf(now()), at: now().getTime(), where: { ccn: query.ccn, locality: query.locality }, testKey: auth?.key_type === 'test', mode: transport === 'mcp' ? 'summary' : 'full', format, redact: query.redact === true },
        });
        return (format === 'json' ? answer : answer.as(CSV_TYPE)) as StreamedJson<RemitExplanation>;
      },
    }),
  ];
}
