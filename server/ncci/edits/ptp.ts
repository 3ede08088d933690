import type { ClaimLine, PtpEditUsed } from '../schemas.js';
import { ANATOMIC_MODIFIERS, CITE_X_MODIFIERS, DISTINCT_MODIFIER_MEANINGS, DISTINCT_MODIFIERS, EM_MODIFIERS, GLOBAL_SURGERY_MODIFIERS, isEmCode, NCCI_POLICY_MANUAL, OTHER_BYPASS_MODIFIERS } from '../modifiers.js';
import type { ClaimContext, ClaimEdit } from './edit.js';

/** The modifier rules of PTP edits. */
const NCCI_PTP_MANUAL = { title: 'CMS NCCI Policy Manual for Medicare Services, Chapter I, sections D and E (procedure-to-procedure edits; modifiers and modifier indicators)', url: NCCI_POLICY_MANUAL.url };

/** Why (or whether) modifiers on a pair of lines bypass an indicator-1 edit; null when none does. */
export function bypassRule(col1: ClaimLine, col2: ClaimLine): string | null {
  const both = [...col1.modifiers, ...col2.modifiers];
  // 59 and -X{EPSU} are not used with E/M services (NCCI Policy Manual ch. I, E): on an E/M line they bypass nothing.
  const distinct = [...(isEmCode(col1.code) ? [] : col1.modifiers), ...(isEmCode(col2.code) ? [] : col2.modifiers)].find((m) => DISTINCT_MODIFIERS.has(m));
  if (distinct) return `modifier ${distinct} (${DISTINCT_MODIFIER_MEANINGS[distinct]}${distinct === '59' ? '' : `; ${CITE_X_MODIFIERS}`})`;
  const other = both.find((m) => OTHER_BYPASS_MODIFIERS.has(m));
  if (other) return `modifier ${other} (${other === '27' ? 'separate outpatient hospital E/M encounter' : 'repeat clinical diagnostic laboratory test'})`;
  const global = both.find((m) => GLOBAL_SURGERY_MODIFIERS.has(m));
  if (global) return `modifier ${global} (global surgery)`;
  for (const line of [col1, col2]) {
    const em = line.modifiers.find((m) => EM_MODIFIERS.has(m));
    if (em && isEmCode(line.code)) return `modifier ${em} on the E/M line ${line.line_id} (${line.code})`;
  }
  const sites = (l: ClaimLine) => l.modifiers.filter((m) => ANATOMIC_MODIFIERS.has(m));
  const s1 = sites(col1);
  const s2 = sites(col2);
  if (s1.length && s2.length && !s1.some((m) => s2.includes(m))) return `anatomic modifiers ${s1.join('/')} and ${s2.join('/')} (different sites)`;
  return null;
}

/** One pair of lines against the PTP edit of their codes, in CMS column order; a pair without an edit adds nothing. */
function checkPair(c: ClaimContext, a: ClaimLine, b: ClaimLine): void {
  const l = c.dayOf(a).ptp(a.code, b.code);
  if (l.choice) {
    c.versions[l.dataset] = l.choice.version.version;
    if (l.choice.warning) c.warnings.add(l.choice.warning);
  }
  if (l.status === 'no_data') {
    c.findings.push({ kind: 'ptp', status: 'no_data', line_ids: [a.line_id, b.line_id], codes: [a.code, b.code], message: `no ${l.dataset} version is loaded: the pair ${a.code}/${b.code} could not be checked`, edit: null, rule: null });
    return;
  }
  const r = l.row;
  if (!r) return; // no edit pairs these codes: nothing to report (counted in pairs_checked)
  const [c1, c2] = r.column1 === a.code ? [a, b] : [b, a];
  const edit: PtpEditUsed = {
    type: 'ptp',
    dataset: l.dataset,
    version: l.choice!.version.version,
    column1: r.column1,
    column2: r.column2,
    effective_date: r.effective_date,
    deletion_date: r.deletion_date,
    modifier_indicator: r.modifier_indicator,
    rationale: r.rationale,
  };
  const base = { kind: 'ptp' as const, line_ids: [c1.line_id, c2.line_id], codes: [c1.code, c2.code], edit };
  const pair = `${c2.code} (line ${c2.line_id}) with ${c1.code} (line ${c1.line_id})`;
  if (l.status === 'not_applicable') {
    c.findings.push({ ...base, status: 'pass', rule: 'modifier indicator 9', message: `${pair}: the edit has modifier indicator 9 (deleted back to its effective date); it does not apply` });
    return;
  }
  if (l.status === 'deleted' || l.status === 'not_yet_effective') {
    const when = l.status === 'deleted' ? `was deleted after ${r.deletion_date}` : `takes effect ${r.effective_date}`;
    c.findings.push({ ...base, status: 'pass', rule: null, message: `${pair}: the edit ${when}, so it does not apply on ${c1.date_of_service}` });
    return;
  }
  const why = `${r.rationale}; edit effective ${r.effective_date ?? 'always'}`;
  if (r.modifier_indicator === '0') {
    c.findings.push({
      ...base,
      status: 'fail',
      rule: 'modifier indicator 0',
      message: `${pair}: column 2 code ${c2.code} is not payable with column 1 code ${c1.code} on the same date (${why}); modifier indicator 0: no modifier bypasses this edit`,
    });
    return;
  }
  const bypass = bypassRule(c1, c2);
  if (bypass) {
    c.findings.push({ ...base, status: 'bypassed', rule: bypass, message: `${pair}: edit bypassed by ${bypass} (modifier indicator 1: allowed when the documentation supports a separate service) (${why})` });
  } else {
    c.findings.push({
      ...base,
      status: 'fail',
      rule: 'modifier indicator 1',
      message: `${pair}: column 2 code ${c2.code} is bundled into ${c1.code} (${why}); modifier indicator 1: an NCCI-associated modifier (59 or XE/XP/XS/XU, anatomic modifiers for different sites, 24/25/57 on the E/M line, 58/78/79, 27, 91) bypasses it only when the documentation supports a distinct service`,
    });
  }
}

/**
 * PTP: every (unordered) pair of lines on the same date with different codes (190 for 20 lines),
 * walked in place: most have no edit and allocate nothing. Indicator 0 fails whatever the
 * modifiers; indicator 1 is bypassed by the NCCI-associated modifiers (`bypassRule`); indicator 9
 * and edits not in force on the date pass.
 */
export const ptp: ClaimEdit = {
  id: 'ptp',
  kinds: ['ptp'],
  applies_to: 'every pair of known lines on the same date with different codes',
  does: 'fails a column 2 code bundled into its column 1 code (indicator 0 always, indicator 1 unless a modifier bypasses it); passes an edit not in force',
  citation: NCCI_PTP_MANUAL,
  check(c) {
    const checked = c.checked;
    for (let i = 0; i < checked.length; i++) {
      const a = checked[i]!;
      for (let j = i + 1; j < checked.length; j++) {
        const b = checked[j]!;
        if (a.code === b.code || a.date_of_service !== b.date_of_service) continue;
        c.pairs_checked++;
        checkPair(c, a, b);
      }
    }
  },
};
