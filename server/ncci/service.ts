import { requireCovered, type RequestDate } from '../../datasets/_shared/versions.js';
import type { VersionUsed } from '../../datasets/_ncci_mue/queries.js';
import type { AocRow } from '../../datasets/ncci_aoc/dataset.js';
import type { PtpLookup } from '../../datasets/_ncci_ptp/queries.js';
import type { PtpEdit } from './schemas.js';

/**
 * The date rule of an NCCI lookup over the files it read (`requireCovered`): a `date_of_service`
 * no loaded quarter of any of them covers is 404, naming the quarter and the nearest loaded
 * version of each; a file whose quarter does not cover it while another's does answers from its
 * nearest version, degraded, with a warning (the lookup's).
 */
export function requireQuarterCovered(when: RequestDate, used: readonly VersionUsed[]): void {
  requireCovered(when, 'quarter', used.map((u) => ({ dataset: u.dataset, pick: { version: { version: u.version, effective_date: u.effective_date }, covered: u.covered } })));
}

const MODIFIER_TEXT = { '0': 'not allowed', '1': 'allowed', '9': 'not applicable' } as const;

function messageOf(l: PtpLookup, a: string, b: string, dos: string): string {
  const r = l.row;
  switch (l.status) {
    case 'no_data':
      return `no ${l.dataset} version is loaded; the pair could not be checked`;
    case 'no_edit':
      return `no PTP edit pairs ${a} and ${b} in version ${l.choice!.version.version}`;
    case 'active':
      return `edit in effect on ${dos}: ${r!.column2} is denied with ${r!.column1} unless the modifier indicator allows a modifier (indicator ${r!.modifier_indicator}: ${MODIFIER_TEXT[r!.modifier_indicator]})`;
    case 'deleted':
      return `the edit was deleted: it applied through ${r!.deletion_date}, not on ${dos}`;
    case 'not_yet_effective':
      return `the edit takes effect ${r!.effective_date}, after ${dos}`;
    case 'not_applicable':
      return 'modifier indicator 9: the edit was deleted back to its effective date and never applied';
  }
}

const POSTED_NOTE = "CMS's NCCI PTP files do not state the day their release was posted (CMS posts a quarter's files weeks before they take effect); see the NCCI PTP page's release list";

/** Builds the response from a lookup: pure, so the shape is testable without HTTP. */
export function toPtpEdit(
  l: PtpLookup,
  q: { a: string; b: string; dos: string; payer: string; state: string; program: 'medicare' | 'medicaid'; ptpType: 'prac' | 'hosp' },
  versionEffective: string,
): Omit<PtpEdit, 'reliability' | 'ai_summary' | 'sentinel' | 'summarizer'> {
  const r = l.row;
  return {
    col1_proc_cd: r?.column1 ?? q.a,
    col2_proc_cd: r?.column2 ?? q.b,
    edit_exists: r !== null,
    edit_in_effect: l.status === 'active',
    status: l.status,
    message: messageOf(l, q.a, q.b, q.dos),
    edit_scope: q.program === 'medicaid' ? 'cms_medicaid_national' : 'cms_medicare_national',
    program: q.program,
    modifier: r?.modifier_indicator ?? null,
    modifier_description: r ? MODIFIER_TEXT[r.modifier_indicator] : '',
    ptp_type: q.ptpType,
    version: l.choice?.version.version ?? '',
    version_effective_dt: versionEffective,
    // CMS posts each release weeks before it takes effect; the PTP files (title lines, layout and
    // zip) do not carry that date, so it is not guessed.
    version_posted_dt: null,
    version_posted_note: POSTED_NOTE,
    edit_effective_dt: r?.effective_date ?? '',
    edit_delete_dt: r?.deletion_date ?? '',
    in_existence_prior_1996: r ? r.in_existence_prior_1996 : null,
    ptp_edit_rationale: r?.rationale ?? '',
    date_of_service: q.dos,
    payer: q.payer,
    state: q.state,
    // No state-specific PTP overlay data is loaded; the national edit is the answer, and says so.
    state_overlay: null,
    state_overlay_note: `no state-specific PTP overlay is loaded${q.state ? ` for ${q.state}` : ''}: the national ${q.program === 'medicaid' ? 'Medicaid' : 'Medicare'} edit answers`,
  };
}

const SETTING_WORDS: Record<string, string> = {
  practitioner: 'practitioner (and ASC) claims',
  'hosp-op': 'outpatient hospital claims',
  dme: 'DME supplier claims',
};

/**
 * Why a Medicaid row has no adjudication indicator. The Medicaid NCCI MUE files publish only the
 * code, value and rationale; states decide how to apply them (CMS Medicaid NCCI Technical Guidance).
 */
export function medicaidMueNote(mueType: string): string {
  return (
    `Medicaid NCCI MUEs have no MUE Adjudication Indicator (MAI): the Medicaid MUE file publishes only the unit value and rationale, so mue_adj_ind is null. ` +
    `The value is the maximum units of service one provider reports for one beneficiary on one date of service on ${SETTING_WORDS[mueType] ?? 'claims'}; ` +
    `each state Medicaid program applies it in its own claims system (per claim line or per date of service, with its own override and appeal rules), so check the state's NCCI policy. ` +
    `medicare_mue_value is the Medicare MUE for the same code and setting, for side-by-side review only.`
  );
}

const AOC_TYPE_DESCRIPTIONS: Record<number, string> = {
  1: 'Type 1: CPT/HCPCS define every acceptable primary code; contractors allow no other primaries.',
  2: 'Type 2: CPT/HCPCS list no primary codes; the contractor decides which primaries are acceptable.',
  3: 'Type 3: CPT/HCPCS list some primary codes; the contractor may allow other primaries.',
};

/** The edit fields of an AOC row as answered. */
export function aocEdit(r: AocRow) {
  const t = r.aoc_edit_type as 1 | 2 | 3;
  return {
    aoc_edit_type: t,
    aoc_edit_type_description: AOC_TYPE_DESCRIPTIONS[t] ?? '',
    aoc_edit_eff_dt: r.aoc_edit_eff_dt,
    aoc_edit_del_dt: r.aoc_edit_del_dt,
    addon_del_dt: r.addon_del_dt,
    primary_del_dt: r.primary_del_dt,
    special_instruction_notes: r.special_instruction_notes,
  };
}

