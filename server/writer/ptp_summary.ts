import type { WriterTask } from './writer.js';

/**
 * Plain-language summaries of an NCCI PTP answer. The template writes the summary from the
 * edit's own fields only, so it cannot state anything the row does not; a `Writer` (the agents'
 * one abstraction for phrasing facts, an LLM when configured) may rephrase it as a writer task,
 * and the sentinel audits whatever comes back.
 */

/** The facts of one PTP answer a summary may speak about (the route's response fields). */
export interface PtpEditFacts {
  col1_proc_cd: string;
  col2_proc_cd: string;
  /** `'0' | '1' | '9'`, null when no edit exists for the pair. */
  modifier: '0' | '1' | '9' | null;
  /** `active`, `deleted`, `not_yet_effective`, `not_applicable`, `no_edit` or `no_data`. */
  status: string;
  edit_effective_dt: string;
  edit_delete_dt: string;
  ptp_edit_rationale: string;
  date_of_service: string;
  ptp_type: 'prac' | 'hosp';
  program: 'medicare' | 'medicaid';
  version: string;
}

const TABLE = { prac: 'practitioner', hosp: 'hospital outpatient' } as const;
const PROGRAM = { medicare: 'Medicare', medicaid: 'Medicaid' } as const;

/** The modifier sentence for an indicator; the sentinel checks summaries against the same facts. */
export function modifierSentence(modifier: PtpEditFacts['modifier']): string {
  switch (modifier) {
    case '0':
      return 'Modifier indicator 0: a modifier is not allowed to bypass this edit, so the column 2 code is denied when both are reported.';
    case '1':
      return 'Modifier indicator 1: an NCCI-associated modifier (such as 59 or XE/XP/XS/XU) is allowed when clinically appropriate and documented.';
    case '9':
      return 'Modifier indicator 9: the edit was deleted back to its effective date, so it does not apply.';
    default:
      return '';
  }
}

/** Writes the summary from the fields alone: codes, status on the date, modifier rule, rationale. */
export function templateSummary(e: PtpEditFacts): string {
  const where = `${PROGRAM[e.program]} NCCI ${TABLE[e.ptp_type]} PTP table, version ${e.version || 'none'}`;
  if (e.status === 'no_data') return `No ${PROGRAM[e.program]} NCCI ${TABLE[e.ptp_type]} PTP data is loaded, so codes ${e.col1_proc_cd} and ${e.col2_proc_cd} could not be checked.`;
  if (e.status === 'no_edit' || e.modifier === null) {
    return `The ${where} has no edit pairing ${e.col1_proc_cd} and ${e.col2_proc_cd}; NCCI PTP does not restrict reporting them together on ${e.date_of_service}.`;
  }
  const pair = `Column 1 code ${e.col1_proc_cd} and column 2 code ${e.col2_proc_cd}`;
  const state: Record<string, string> = {
    active: `are an active edit pair on ${e.date_of_service} (effective ${e.edit_effective_dt}${e.edit_delete_dt ? `, deleted after ${e.edit_delete_dt}` : ''}).`,
    deleted: `were an edit pair from ${e.edit_effective_dt} through ${e.edit_delete_dt}; the edit no longer applies on ${e.date_of_service}.`,
    not_yet_effective: `form an edit pair that takes effect ${e.edit_effective_dt}, after the date of service ${e.date_of_service}.`,
    not_applicable: `appear as an edit pair that never applied (deleted back to ${e.edit_effective_dt}).`,
  };
  const parts = [`${pair} ${state[e.status] ?? `have edit status ${e.status}.`}`];
  if (e.status === 'active') parts.push(modifierSentence(e.modifier));
  else if (e.modifier === '9') parts.push(modifierSentence('9'));
  if (e.ptp_edit_rationale) parts.push(`Rationale: ${e.ptp_edit_rationale}.`);
  parts.push(`Source: ${where}.`);
  return parts.join(' ');
}

/** The name reported beside a template summary (`summarizer`). */
export const TEMPLATE_SUMMARY = 'template-v1';

/** A PTP summary as a writer task: the template summary is the conclusion, the edit its one piece of evidence. */
export function summaryTask(e: PtpEditFacts): WriterTask {
  const conclusion = templateSummary(e);
  return { agent: 'ncci_ptp_summary', conclusion, evidence: [{ kind: 'ptp_edit', statement: conclusion, facts: { ...e }, citation: null }] };
}
