import { lookupMueInDataset } from '../../../datasets/_ncci_mue/queries.js';
import { ptpPairFinder } from '../../../datasets/_ncci_ptp/queries.js';
import { ANY_PRIMARY } from '../../../datasets/ncci_aoc/dataset.js';
import { aocEditsOn } from '../../../datasets/ncci_aoc/queries.js';
import type { PayerKnowledge } from '../../../datasets/payers/queries.js';
import type { PayerRow } from '../../../datasets/payers/schema.js';
import type { SnapshotReader } from '../../../warehouse/snapshot.js';
import type { RemedyCitation } from '../../denials/remedy.js';
import { ncciSources, type NcciSources } from '../../ncci/sources.js';
import { MUE_ADJUDICATION_CITATION, mueWhenExceeded, NCCI_POLICY_MANUAL } from '../../ncci/validate.js';
import type { Trace } from '../../trace.js';
import type { MueLink, NcciLink, RemitClaim, RemitLine } from '../schemas.js';
import { dosOf, hcpcsOf, TABLE_OF, warnOnce } from './shared.js';

/**
 * The NCCI links of a denied line: the PTP edit behind a bundling denial, the add-on edit behind
 * an add-on denied alone, the MUE behind a units denial, from the claim's program's edit set.
 */

const PTP_PAGE = {
  medicare: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-procedure-procedure-ptp-edits',
  medicaid: 'https://www.medicaid.gov/medicaid/program-integrity/national-correct-coding-initiative/medicaid-ncci-edit-files/index.html',
} as const;
const MUE_PAGE = {
  medicare: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-medically-unlikely-edits',
  medicaid: PTP_PAGE.medicaid,
} as const;
const AOC_PAGE = 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-add-code-edits';


/** The NCCI files of a claim: Medicare for MA/MB, the Medicaid edit set for MC, else the payer's (Medicare as the reference). */
export function sourcesFor(program: 'medicare' | 'medicaid' | null, txPayer: PayerRow | null, payers: PayerKnowledge | null, setting: 'prac' | 'hosp'): NcciSources {
  if (program === 'medicare') return ncciSources(null, setting);
  if (program === 'medicaid') {
    const medicaid = txPayer?.ncci_edit_set === 'medicaid' ? txPayer : (payers?.payers.get('medicaid') ?? null);
    const s = ncciSources(medicaid, setting);
    if (s.program === 'medicaid') return s;
    return { ...s, program: 'medicaid', ptp: `medicaid_ptp_${setting}`, mue: setting === 'prac' ? 'medicaid_mue_prac' : 'medicaid_mue_hosp', warning: undefined };
  }
  return ncciSources(txPayer, setting);
}

function ptpCitations(s: NcciSources, version: string | null, file: string | undefined): RemedyCitation[] {
  const what = `${s.program === 'medicaid' ? 'Medicaid' : 'Medicare'} NCCI PTP edits, ${TABLE_OF[s.setting]} table${version ? `, version ${version}` : ''}${file ? ` (${file})` : ''}`;
  return [{ title: what, url: PTP_PAGE[s.program] }, NCCI_POLICY_MANUAL];
}

/** The other HCPCS codes of the claim on the line's date: the candidates for column 1. */
export function othersOnDate(claim: RemitClaim, line: RemitLine, code: string, dos: string): string[] {
  return [...new Set(claim.lines.filter((l) => l !== line && dosOf(claim, l) === dos).map(hcpcsOf).filter((c): c is string => c !== null && c !== code))];
}

export async function ptpLink(snapshot: SnapshotReader, s: NcciSources, others: string[], code: string, dos: string, trace: Trace): Promise<NcciLink> {
  const find = await ptpPairFinder(snapshot, s.ptp, [code, ...others], dos);
  const lookups = others.map((c) => find(c, code));
  const choice = lookups[0]?.choice ?? find(code, code).choice;
  trace.use(s.ptp, choice?.version.version ?? null);
  if (choice && !choice.covered) trace.degrade();
  warnOnce(trace, choice?.warning);
  warnOnce(trace, s.warning);
  const version = choice?.version.version ?? null;
  const hit = lookups.find((l) => l.status === 'active' && l.row!.column2 === code && l.row!.modifier_indicator === '0') ?? lookups.find((l) => l.status === 'active' && l.row!.column2 === code);
  // An edit pairing the codes that was not in force on the date (or is indicator 9): the payer may have applied it anyway.
  const outOfForce = hit ? undefined : lookups.find((l) => l.row && l.row.column2 === code && l.status !== 'active');
  const base = { edit: 'ptp' as const, program: s.program, table: TABLE_OF[s.setting], dataset: s.ptp, version, version_in_force: !!choice?.covered, date_of_service: dos, column2: code };
  const citations = ptpCitations(s, version, choice?.version.source_files[0]?.name);
  const found = hit ?? outOfForce;
  if (!found) {
    const why = !choice ? `no ${s.ptp} version is loaded` : others.length === 0 ? 'no other code on the claim on that date' : `no ${s.program === 'medicaid' ? 'Medicaid' : 'Medicare'} PTP edit in force on ${dos} has ${code} as column 2 of ${others.join(', ')} (version ${version})`;
    return {
      ...base,
      column1: null,
      modifier_indicator: null,
      edit_status: choice ? 'no_edit' : 'no_data',
      edit_effective: null,
      edit_deleted: null,
      rationale: null,
      explanation: `${why}: the bundling is the payer's own edit or policy, not an NCCI PTP edit in the loaded files`,
      citations,
    };
  }
  const r = found.row!;
  const mi = r.modifier_indicator as '0' | '1' | '9';
  const status = found.status as 'active' | 'deleted' | 'not_yet_effective' | 'not_applicable';
  const explanation =
    status === 'deleted' || status === 'not_yet_effective'
      ? `${code} is column 2 of ${r.column1} in an edit that was not in force on ${dos} (effective ${r.effective_date ?? '?'}${r.deletion_date ? `, deleted after ${r.deletion_date}` : ''})`
      : status === 'not_applicable'
        ? `${code} and ${r.column1}: the edit's modifier indicator is 9 (not applicable): it does not bundle them`
        : mi === '1'
          ? `${code} is column 2 of ${r.column1} (modifier indicator 1): an NCCI-associated modifier (59 or XE, XP, XS, XU; an anatomic modifier) bypasses it when the record supports a distinct service; otherwise it is bundled into ${r.column1}`
          : `${code} is column 2 of ${r.column1} (modifier indicator 0): not payable with ${r.column1} on the same date; no modifier overrides the edit`;
  return { ...base, column1: r.column1, modifier_indicator: mi, edit_status: status, edit_effective: r.effective_date, edit_deleted: r.deletion_date, rationale: r.rationale, explanation, citations };
}

export async function aocLink(snapshot: SnapshotReader, s: NcciSources, claim: RemitClaim, code: string, dos: string, trace: Trace): Promise<NcciLink | null> {
  const on = await aocEditsOn(snapshot, dos);
  trace.use('ncci_aoc', on?.used.version ?? null);
  if (!on) return null;
  if (!on.used.covered) trace.degrade();
  warnOnce(trace, on.used.warning);
  const rows = on.asAddon(code);
  if (rows.length === 0) return null;
  const primaries = [...new Set(rows.map((r) => r.primary_code))];
  const onClaim = [...new Set(claim.lines.map(hcpcsOf).filter((c): c is string => c !== null && primaries.includes(c)))];
  const named = primaries.filter((p) => p !== ANY_PRIMARY);
  const r = rows[0]!;
  return {
    edit: 'aoc',
    program: s.program,
    table: TABLE_OF[s.setting],
    dataset: 'ncci_aoc',
    version: on.used.version,
    version_in_force: on.used.covered,
    date_of_service: dos,
    column1: null,
    column2: code,
    modifier_indicator: null,
    edit_effective: r.aoc_edit_eff_dt,
    edit_deleted: r.aoc_edit_del_dt,
    rationale: r.special_instruction_notes ?? null,
    primary_codes: primaries,
    primaries_on_claim: onClaim,
    edit_status: 'active',
    explanation: named.length
      ? `${code} is an add-on code: it is paid only with one of its primary codes (${named.slice(0, 20).join(', ')}${named.length > 20 ? ', ...' : ''}) by the same practitioner on the same date${onClaim.length ? `; ${onClaim.join(', ')} is on this claim, so ask the payer why it was not matched` : '; bill it with the primary service'}`
      : `${code} is an add-on code whose primary codes the contractor decides (type 2): bill it with the primary service the contractor accepts`,
    citations: [{ title: `CMS NCCI add-on code edits, version ${on.used.version}${on.used.source_file ? ` (${on.used.source_file})` : ''}`, url: AOC_PAGE }],
  };
}

export async function mueLink(snapshot: SnapshotReader, s: NcciSources, line: RemitLine, code: string, dos: string, trace: Trace): Promise<MueLink> {
  const l = await lookupMueInDataset<{ proc_cd: string; mue_value: number; mue_adj_ind?: number | null; mue_adj_ind_label?: string | null; mue_rationale: string | null }>(snapshot, s.mue as Parameters<typeof lookupMueInDataset>[1], s.mueType, code, dos);
  trace.use(s.mue as Parameters<Trace['use']>[0], l?.used.version ?? null);
  if (l && !l.used.covered) trace.degrade();
  warnOnce(trace, l?.used.warning);
  const row = l?.row ?? null;
  const mai = row && s.program === 'medicare' && row.mue_adj_ind ? (row.mue_adj_ind as 1 | 2 | 3) : null;
  return {
    program: s.program,
    table: TABLE_OF[s.setting],
    dataset: s.mue,
    version: l?.used.version ?? null,
    version_in_force: !!l?.used.covered,
    date_of_service: dos,
    code,
    mue_value: row?.mue_value ?? null,
    mai,
    mai_label: (mai && row?.mue_adj_ind_label) || null,
    rationale: row?.mue_rationale ?? null,
    units_billed: line.units,
    exceeded: row ? line.units > row.mue_value : null,
    when_exceeded: mai ? mueWhenExceeded(mai) : null,
    citations: [{ title: `${s.program === 'medicaid' ? 'Medicaid' : 'Medicare'} NCCI MUEs, ${TABLE_OF[s.setting]} table${l ? `, version ${l.used.version}${l.used.source_file ? ` (${l.used.source_file})` : ''}` : ''}`, url: MUE_PAGE[s.program] }, ...(mai ? [MUE_ADJUDICATION_CITATION] : [])],
  };
}

