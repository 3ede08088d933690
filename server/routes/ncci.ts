import { ANY_PRIMARY } from '../../datasets/ncci_aoc/dataset.js';
import { findMedicaidMues, findMedicareMues } from '../../datasets/_ncci_mue/queries.js';
import { lookupAocEdits } from '../../datasets/ncci_aoc/queries.js';
import { lookupPtpEdit } from '../../datasets/_ncci_ptp/queries.js';
import { claimLookups, requireClaimDatesCovered } from '../ncci/claim.js';
import { resolvePayerIn } from '../payers/service.js';
import { ncciSources } from '../ncci/sources.js';
import { defineRoute, json, type RouteDef } from '../route.js';
import { checkClaim, MUE_ADJUDICATION_CITATION, mueWhenExceeded, NCCI_POLICY_MANUAL } from '../ncci/validate.js';
import { coverageFindings } from '../ncci/coverage.js';
import { ClaimValidationSchema, ValidateBodySchema, AocLookupSchema, CodeParams, DosQuery, MedicaidMueListSchema, MueDosQuery, MedicareMueListSchema, PtpEditSchema, PtpQuerySchema, type ClaimLine, type PtpEdit } from '../ncci/schemas.js';
import { auditSummary } from '../writer/ptp_sentinel.js';
import { aocEdit, medicaidMueNote, requireQuarterCovered, toPtpEdit } from '../ncci/service.js';
import type { Writer } from '../writer/writer.js';
import { summaryTask, templateSummary, TEMPLATE_SUMMARY, type PtpEditFacts } from '../writer/ptp_summary.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { versionForRequest } from '../../datasets/_shared/versions.js';

/** The date rule of the NCCI routes, in the words of their descriptions. */
const DATE_RULE = 'No quarter loaded covering the date: 404 naming the nearest loaded. No date: today\'s quarter, else the newest loaded (degraded).';

/** Effects the PTP routes take from outside: a writer that rephrases summaries (the template's text when none). */
export interface PtpRouteDeps {
  writer?: Writer;
}

function ptpRoute(ptpType: 'prac' | 'hosp', deps: PtpRouteDeps): RouteDef {
  const writer = deps.writer;
  const table = ptpType === 'prac' ? 'practitioner' : 'hospital outpatient';
  return defineRoute({
    method: 'get',
    path: `/v1/ncci/ptp/${ptpType}`,
    operationId: ptpType === 'prac' ? 'getPtpPrac' : 'getPtpHosp',
    tag: 'ncci',
    summary: `NCCI procedure-to-procedure edit for a code pair, ${table} table`,
    description:
      `Codes in either order answer in CMS column order. \`date_of_service\` (default today) selects the quarterly version whose quarter contains it. ${DATE_RULE} \`status: no_edit\` ` +
      'means the pair has no edit. `payer` medicaid/masshealth/medi_cal reads the Medicaid NCCI edit set. `state` is ' +
      'echoed; no state-specific PTP overlay is loaded (`state_overlay` is null, `state_overlay_note` says so).',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // date_of_service defaults to today, so cached answers are keyed by the day too.
    cache: 'daily',
    query: PtpQuerySchema,
    resolve: resolvePayerIn('query', 'payer'),
    response: PtpEditSchema,
    errors: ['not_found'],
    examples: [
      {
        summary: 'two office visit levels on one day',
        query: { column1: '99214', column2: '99213', date_of_service: '2026-08-01' },
      },
      { summary: 'a date no loaded quarter covers', status: 404, query: { column1: '99214', column2: '99213', date_of_service: '2025-01-15' } },
      { summary: 'a column 1 code too short', status: 422, query: { column1: '9921', column2: '99213' } },
      { summary: 'a payer nobody knows', status: 422, query: { column1: '99214', column2: '99213', payer: 'nope' } },
    ],
    handler: async ({ query, resolved, snapshot, now, trace }) => {
      const today = todayOf(now());
      const dos = query.date_of_service ?? today;
      const src = ncciSources(resolved.payer, ptpType);
      const program = src.program;
      const a = query.column1;
      const b = query.column2;
      const pick = versionForRequest(src.ptp, snapshot.versions(src.ptp), 'quarter', { date: query.date_of_service, today });
      const l = await lookupPtpEdit(snapshot, src.ptp, a, b, dos, pick);
      trace.use(src.ptp, l.choice?.version.version).degrade(l.choice ? !l.choice.covered : true);
      if (src.warning) trace.warn(src.warning);
      if (l.choice?.warning) trace.warn(l.choice.warning);
      if (a === b) trace.warn('column1 and column2 are the same code; PTP edits pair two different codes');
      const versionEffective = l.choice?.version.effective_date ?? '';
      const body: PtpEdit = {
        ...toPtpEdit(l, { a, b, dos, payer: resolved.payer?.slug ?? 'medicare', state: query.state ?? '', program, ptpType }, versionEffective),
        reliability: trace.reliability(),
      };
      if (query.include_summary) {
        const facts: PtpEditFacts = {
          col1_proc_cd: body.col1_proc_cd,
          col2_proc_cd: body.col2_proc_cd,
          modifier: body.modifier,
          status: body.status,
          edit_effective_dt: body.edit_effective_dt,
          edit_delete_dt: body.edit_delete_dt,
          ptp_edit_rationale: body.ptp_edit_rationale,
          date_of_service: dos,
          ptp_type: ptpType,
          program,
          version: body.version,
        };
        let summary = templateSummary(facts);
        let summarizer = TEMPLATE_SUMMARY;
        if (writer) {
          try {
            summary = await writer.write(summaryTask(facts));
            summarizer = writer.name;
          } catch (e) {
            body.reliability.warnings.push(`the summary writer failed (${(e as Error).message}); the template summary is used`);
          }
        }
        const sentinel = auditSummary(summary, facts);
        // A summary carrying links, identifiers or instructions is withheld, not passed on.
        body.ai_summary = sentinel.audit.security_findings.length ? '' : summary;
        body.summarizer = summarizer;
        body.sentinel = sentinel;
        if (sentinel.escalation_required) body.reliability.warnings.push(`the AI summary failed the sentinel audit (${sentinel.audit.flags.join(', ')}); rely on the edit fields`);
      }
      return body;
    },
  });
}


/**
 * NCCI MUE (Medicare and Medicaid) and add-on code routes. A well-formed code with no edit answers
 * 200 with empty lists (the spec: "a lookup that finds nothing may return an empty list"): for
 * edits, "no MUE / not an add-on" is an answer, not a missing resource. Versions are chosen by
 * `date_of_service` with the one date rule: a date no loaded quarter of the route's files covers
 * is 404; a file whose quarter does not cover it while another's does answers from its nearest
 * version, degraded; without a date, today's quarter, else the newest loaded, degraded.
 */
const mueRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/ncci/mue/{code}',
    operationId: 'getMue',
    tag: 'ncci',
    summary: 'Medicare MUEs for a code: practitioner, outpatient hospital and DME rows',
    description:
      `Value, adjudication indicator (1/2/3 with its words) and rationale per setting, from the quarterly version that covers date_of_service (default today). ${DATE_RULE} A table without the quarter (while another has it) answers from its nearest, degraded. With what CMS denies when units exceed it (\`when_exceeded\`: the whole line for MAI 1, all units of the code on the claim for the date for MAI 2/3, never only the excess). An unknown code returns an empty results list.`,
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // date_of_service defaults to today, so cached answers are keyed by the day too.
    cache: 'daily',
    params: CodeParams,
    query: MueDosQuery,
    response: MedicareMueListSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'units allowed per day for an office visit', params: { code: '99213' }, query: { date_of_service: '2026-08-01' } },
      { summary: 'the same, dated today', params: { code: '99213' } },
      { summary: 'a date no loaded quarter covers', status: 404, params: { code: '99213' }, query: { date_of_service: '2025-01-15' } },
      { summary: 'a date that does not exist', status: 422, params: { code: '99213' }, query: { date_of_service: '2026-02-30' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const today = todayOf(now());
      const dos = query.date_of_service ?? today;
      const found = await findMedicareMues(snapshot, params.code, query.date_of_service, today);
      requireQuarterCovered({ date: query.date_of_service, today }, found.lookups.map((l) => l.used));
      return {
        proc_cd: params.code,
        program: 'medicare' as const,
        date_of_service: dos,
        results: found.lookups
          .filter((l) => l.row)
          .map((l) => ({
            proc_cd: l.row!.proc_cd,
            mue_type: l.mue_type,
            program: 'medicare' as const,
            mue_value: l.row!.mue_value,
            mue_adj_ind: l.row!.mue_adj_ind as 1 | 2 | 3,
            mue_adj_ind_label: l.row!.mue_adj_ind_label,
            mue_rationale: l.row!.mue_rationale,
            when_exceeded: mueWhenExceeded(l.row!.mue_adj_ind as 1 | 2 | 3),
            when_exceeded_citation: MUE_ADJUDICATION_CITATION,
            version: l.used.version,
            version_effective_dt: l.used.effective_date,
            loaded_at: l.used.loaded_at,
            source_file: l.used.source_file,
          })),
        reliability: trace.useAll(found.versions).warn(...found.warnings).degrade(found.degraded).reliability(),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ncci/medicaid/mue/{code}',
    operationId: 'getMedicaidMue',
    tag: 'ncci',
    summary: 'Medicaid MUEs for a code across practitioner, hosp-op and DME, with the Medicare value beside each',
    description:
      `Medicaid NCCI MUE rows (mue_adj_ind is always null: Medicaid files have no adjudication indicator) with medicare_mue_value for the same code and setting. Optional date_of_service selects the quarterly version. ${DATE_RULE} An unknown code returns an empty results list.`,
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // Without date_of_service, today's quarter picks the version.
    cache: 'daily',
    params: CodeParams,
    query: DosQuery,
    response: MedicaidMueListSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'Medicaid units per day for an office visit, beside Medicare', params: { code: '99213' } },
      { summary: 'a date no loaded quarter covers', status: 404, params: { code: '99213' }, query: { date_of_service: '2025-01-15' } },
      { summary: 'not a code', status: 422, params: { code: '99-13' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const today = todayOf(now());
      const found = await findMedicaidMues(snapshot, params.code, query.date_of_service, today);
      requireQuarterCovered({ date: query.date_of_service, today }, found.lookups.map((l) => l.used));
      return {
        proc_cd: params.code,
        program: 'medicaid' as const,
        results: found.lookups
          .filter((l) => l.row)
          .map((l) => ({
            proc_cd: l.row!.proc_cd,
            mue_type: l.mue_type,
            note: medicaidMueNote(l.mue_type),
            program: 'medicaid' as const,
            mue_value: l.row!.mue_value,
            mue_adj_ind: null,
            mue_rationale: l.row!.mue_rationale,
            medicare_mue_value: l.medicare_mue_value,
            loaded_at: l.used.loaded_at,
            source_file: l.used.source_file,
          })),
        reliability: trace.useAll(found.versions).warn(...found.warnings).degrade(found.degraded).reliability(),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ncci/aoc/{code}',
    operationId: 'getAoc',
    tag: 'ncci',
    summary: 'Add-on code edits for a code: its primary codes as an add-on, and the add-ons that list it as a primary',
    description:
      `Edits in force on date_of_service (effective on or before it, not deleted before it) from the quarterly version covering it; without one, its active edits. ${DATE_RULE} A code with no AOC edits returns empty lists.`,
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    // Without date_of_service, today's quarter picks the version.
    cache: 'daily',
    params: CodeParams,
    query: DosQuery,
    response: AocLookupSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'primary codes of a prolonged-service add-on', params: { code: '99417' }, query: { date_of_service: '2026-08-01' } },
      { summary: 'the same, dated today', params: { code: '99417' } },
      { summary: 'a date no loaded quarter covers', status: 404, params: { code: '99417' }, query: { date_of_service: '2025-01-15' } },
      { summary: 'too short to be a code', status: 422, params: { code: '994' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const today = todayOf(now());
      const found = await lookupAocEdits(snapshot, params.code, query.date_of_service, today);
      requireQuarterCovered({ date: query.date_of_service, today }, found ? [found.used] : []);
      if (found) trace.use('ncci_aoc', found.used.version).degrade(!found.used.covered);
      else trace.warn('ncci_aoc is not loaded: no add-on code edits can be reported').degrade();
      if (found?.used.warning) trace.warn(found.used.warning);
      return {
        code: params.code,
        date_of_service: query.date_of_service ?? null,
        version: found?.used.version ?? null,
        version_effective_dt: found?.used.effective_date ?? null,
        is_add_on: (found?.as_addon.length ?? 0) > 0,
        primary_codes: (found?.as_addon ?? []).map((r) => ({
          primary_code: r.primary_code === ANY_PRIMARY ? null : r.primary_code,
          any_primary: r.primary_code === ANY_PRIMARY,
          ...aocEdit(r),
        })),
        add_on_codes: (found?.as_primary ?? []).map((r) => ({ addon_code: r.addon_code, ...aocEdit(r) })),
        reliability: trace.reliability(),
      };
    },
  }),
];

const validateRoute = defineRoute({
  method: 'post',
  path: '/v1/ncci/validate',
  operationId: 'validateClaimNcci',
  tag: 'ncci',
  summary: 'Check a whole claim against NCCI: PTP for every pair of lines, MUE per line and per date, add-on codes against their primaries',
  description:
    'Up to 100 lines of {line_id?, code, modifiers, units, date_of_service?}. PTP: every pair of lines on the same date in CMS column order; modifier ' +
    'indicator 1 is bypassed by an NCCI-associated modifier on either line (59, XE, XP, XS, XU, 27, 91, 58, 78, 79; anatomic modifiers only when the ' +
    'two lines name different sites; 24, 25 and 57 only on the E/M line), indicator 0 never, indicator 9 does not apply. MUE: MAI 1 per line, MAI 2 ' +
    'and 3 summed per code and date; a failed MUE names the units CMS denies (`denied_units`: the whole line, or every unit of the code for the date, not only the excess). Add-ons: type 1 without a listed primary fails, types 2 and 3 warn. 59/XE/XP/XS/XU on an E/M code fails (and bypasses ' +
    'nothing). A Medicare claim (no payer, or a Medicare payer) also fails, with the rule cited: a code not valid on the date (PFS status D/F, or not in ' +
    "the RVU release of the date's year), on prac a code the PFS does not pay (status B, I, N; E and X unless CLFS, DMEPOS or ASP pays it; a status X " +
    'code Addendum B pays, such as G0463; no RVU row and OPPS status E1), on hosp OPPS status indicators B, E1, E2 and M. A code no loaded file knows is ' +
    'no_data. A date none of the claim\'s PTP, MUE and add-on files covers: 404 naming the nearest loaded; a file lacking it (another has it) reads its nearest version (degraded). ' +
    'A line without a date is dated today: today\'s quarter, else the newest loaded (degraded). ' +
    '`payer` medicaid/masshealth/medi_cal selects the Medicaid PTP and MUE files. `summary.clean` is true only when nothing failed and nothing lacked data.',
  auth: { scope: 'knowledge' },
  reads: 'snapshot',
  // A claim is a question about the snapshot: the same claim sent again (fields in any order) is
  // answered from the answer cache, as a priced stay is. A new claim is checked in full. Lines
  // without a date are dated today, so the day is part of the key.
  cache: 'daily',
  body: json(ValidateBodySchema, 64 * 1024),
  resolve: resolvePayerIn('body', 'payer'),
  response: ClaimValidationSchema,
  errors: ['not_found'],
  examples: [
    {
      summary: 'an office visit with a debridement and its add-on',
      body: {
        date_of_service: '2026-08-01',
        setting: 'prac',
        lines: [
          { code: '99213', modifiers: ['25'], units: 1 },
          { code: '11042', units: 1 },
          { code: '97597', units: 1 },
        ],
      },
    },
    {
      summary: 'a Medicaid hospital claim with a bypass modifier and a code no file knows',
      body: { date_of_service: '2026-08-01', setting: 'hosp', payer: 'medicaid', lines: [{ code: '11042' }, { code: '97597', modifiers: ['59'] }, { code: 'ZZZZZ' }] },
    },
    { summary: 'a claim without lines', status: 422, body: { date_of_service: '2026-08-01', setting: 'prac', lines: [] } },
    { summary: 'a date no loaded quarter covers', status: 404, body: { date_of_service: '2025-01-15', setting: 'prac', lines: [{ code: '99213' }, { code: '11042' }] } },
  ],
  handler: async ({ body, resolved, snapshot, trace, now }) => {
    const src = ncciSources(resolved.payer, body.setting);
    const program = src.program;
    // A line without a date (none on the claim either) is dated today; its files are picked as a request without a date's.
    const today = todayOf(now());
    const undated = body.lines.some((l) => l.date_of_service === undefined) ? today : undefined;
    const lines: ClaimLine[] = body.lines.map((l) => (l.date_of_service === undefined ? { line_id: l.line_id, code: l.code, modifiers: l.modifiers, units: l.units, date_of_service: today } : (l as ClaimLine)));
    requireClaimDatesCovered(snapshot, src, lines, undated);
    // Medicare's payment rules (PFS status, OPPS status indicators, code dates) apply to a Medicare claim: no payer, or a Medicare payer.
    const medicare = !resolved.payer || resolved.payer.payer_type === 'medicare';
    const check = await checkClaim(lines, claimLookups(snapshot, src, { medicare, undated }), body.setting);
    if (medicare && body.diagnoses?.length) check.findings.push(...(await coverageFindings(snapshot, lines, body.pointers, body.diagnoses, body.state ?? null, trace)));
    const count = (s: string) => check.findings.filter((f) => f.status === s).length;
    trace.useAll(check.read).useAll(check.versions).warn(...check.warnings).degrade(check.degraded || count('no_data') > 0);
    if (src.warning) trace.warn(src.warning);
    if (program === 'medicaid') trace.warn('Medicaid NCCI add-on code edits are not loaded: add-ons were checked against the Medicare AOC file');
    const summary = {
      fail: count('fail'),
      bypassed: count('bypassed'),
      pass: count('pass'),
      warn: count('warn'),
      no_data: count('no_data'),
      clean: count('fail') === 0 && count('no_data') === 0,
      lines: lines.length,
      pairs_checked: check.pairs_checked,
      ncci_versions: check.versions,
      policy: NCCI_POLICY_MANUAL,
    };
    return {
      date_of_service: body.date_of_service ?? today,
      setting: body.setting,
      program,
      payer: resolved.payer?.slug ?? null,
      state: body.state ?? null,
      lines,
      findings: check.findings,
      summary,
      reliability: trace.reliability(),
    };
  },
});

/** Builds the NCCI routes with injected effects (a writer for the PTP summaries). */
export function makeNcciRoutes(deps: PtpRouteDeps = {}): RouteDef[] {
  return [ptpRoute('prac', deps), ptpRoute('hosp', deps), ...mueRoutes, validateRoute];
}

/** PTP (prac, hosp), MUE, add-on and Medicaid MUE routes with template summaries. */
