import type { ClaimLine, MueEditUsed } from '../schemas.js';
import type { ClaimContext, ClaimEdit } from './edit.js';

/**
 * What each MUE adjudication indicator means, in the order CMS adjudicates: which units are
 * compared, what is denied over the MUE, then what an appeal may pay. MAI 1: a line edit, a line
 * over the MUE is denied in full; MAI 2: a date of service edit on policy, an absolute limit (units
 * above it are never paid, on appeal either); MAI 3: a date of service edit on clinical
 * benchmarks (on appeal, units above it may be paid with documentation of medical necessity).
 */
const MAI_MEANING: Record<1 | 2 | 3, string> = {
  1: 'MAI 1 (line edit): the units on each claim line are compared with the MUE; a line over it is denied in full',
  2: 'MAI 2 (date of service edit, policy): units of the code on all lines for the date are summed; the MUE is an absolute limit: units above it are not payable, on appeal either',
  3: 'MAI 3 (date of service edit, clinical): units of the code on all lines for the date are summed; on appeal, units above the MUE may be paid with documentation of medical necessity',
};

/**
 * Where CMS says what an MUE denies: a claim line edit denies all units of the line; a date of
 * service edit sums the code's units the provider reported for the beneficiary on the date and, over
 * the MUE, denies all units of the code on the current claim (not only the excess).
 */
export const MUE_ADJUDICATION_CITATION = {
  title: 'CMS FAQ 11344: How are claims adjudicated with Medically Unlikely Edits (MUEs)? (claim line edits deny all units of the line; date of service edits deny all units of the code on the claim); CMS NCCI Medically Unlikely Edits page',
  url: 'https://questions.cms.gov/faq.php?id=5005&faqId=11344',
};

/** What CMS denies when units exceed an MUE with this indicator (the words every MUE answer carries). */
export function mueWhenExceeded(mai: 1 | 2 | 3): string {
  if (mai === 1) return 'claim line edit: a line whose units exceed the MUE is denied in full (all its units, not only the units above the MUE); the same code on another line, with a modifier for a distinct service, is adjudicated separately';
  const appeal = mai === 2 ? 'the MUE is an absolute policy limit: units above it are not payable, on appeal either' : 'on appeal, units above the MUE may be paid with documentation of medical necessity';
  return `date of service edit: the code's units the provider reports for the beneficiary on the date (on this and earlier claims) are summed; over the MUE, all units of the code on the claim are denied, not only the excess; ${appeal}`;
}

/** The known lines by code and date of service: an MUE of MAI 2 or 3 limits their units together. */
function byCodeAndDate(lines: readonly ClaimLine[]): ClaimLine[][] {
  const groups = new Map<string, ClaimLine[]>();
  for (const l of lines) {
    const k = `${l.code}\u0000${l.date_of_service}`;
    const g = groups.get(k);
    if (g) g.push(l);
    else groups.set(k, [l]);
  }
  return [...groups.values()];
}

/** MAI 1, and Medicaid rows (no MAI: states apply them per line or per date), line by line; Medicaid lines over it together warn. */
function perLine(c: ClaimContext, g: ClaimLine[], edit: MueEditUsed, mai: 1 | null): void {
  const value = edit.mue_value;
  for (const l of g) {
    const over = l.units > value;
    const denied = over && mai === 1 ? `: CMS denies the whole line, all ${l.units} units, not only the ${l.units - value} above it` : '';
    c.findings.push({
      kind: 'mue',
      status: over ? 'fail' : 'pass',
      line_ids: [l.line_id],
      codes: [l.code],
      edit,
      rule: mai === 1 ? 'MAI 1' : 'Medicaid MUE (no MAI)',
      message: `${l.code} line ${l.line_id}: ${l.units} unit(s) ${over ? 'exceed' : 'within'} the MUE of ${value}${denied}; ${mai === 1 ? MAI_MEANING[1] : 'Medicaid MUEs carry no adjudication indicator; each state applies them per line or per date of service'}`,
      ...(over && mai === 1 ? { denied_units: l.units, citation: MUE_ADJUDICATION_CITATION } : {}),
    });
  }
  const total = g.reduce((s, l) => s + l.units, 0);
  if (mai === null && g.length > 1 && total > value) {
    const first = g[0]!;
    c.findings.push({ kind: 'mue', status: 'warn', line_ids: g.map((l) => l.line_id), codes: [first.code], edit, rule: 'Medicaid MUE (no MAI)', message: `${first.code}: ${total} units on ${g.length} lines exceed the MUE of ${value} for the date; a state that applies it per date of service denies the excess` });
  }
}

/** MAI 2 and 3: the units of the code on all lines of the date, summed. */
function perDate(c: ClaimContext, g: ClaimLine[], edit: MueEditUsed, mai: 2 | 3): void {
  const first = g[0]!;
  const value = edit.mue_value;
  const total = g.reduce((s, l) => s + l.units, 0);
  const over = total > value;
  const denied = over ? `: CMS denies all ${total} units of ${first.code} for the date on this claim, not only the ${total - value} above it (units on other claims for the date count toward the MUE too)` : '';
  c.findings.push({
    kind: 'mue',
    status: over ? 'fail' : 'pass',
    line_ids: g.map((l) => l.line_id),
    codes: [first.code],
    edit,
    rule: `MAI ${mai}`,
    message: `${first.code} on ${first.date_of_service}: ${total} unit(s) across ${g.length} line(s) ${over ? 'exceed' : 'within'} the MUE of ${value}${denied}; ${MAI_MEANING[mai]}`,
    ...(over ? { denied_units: total, citation: MUE_ADJUDICATION_CITATION } : {}),
  });
}

/**
 * MUE: per line (MAI 1) and per code and date across lines (MAI 2 and 3). A failed Medicare MUE
 * says what CMS denies (`denied_units`: the whole line for MAI 1, every unit of the code on the
 * claim for the date for MAI 2 and 3); Medicaid rows (no MAI) are checked per line, with a warning
 * when the lines together exceed the value.
 */
export const mue: ClaimEdit = {
  id: 'mue',
  kinds: ['mue'],
  applies_to: 'the units of each known code on each date, by the MUE table of the setting',
  does: 'fails units over the MUE (MAI 1 per line; MAI 2 and 3 summed across the lines of the date); Medicaid rows per line, warning on the sum',
  citation: { ...MUE_ADJUDICATION_CITATION },
  check(c) {
    for (const g of byCodeAndDate(c.checked)) {
      const first = g[0]!;
      const m = c.dayOf(first).mue(first.code);
      if (!m) {
        c.findings.push({ kind: 'mue', status: 'no_data', line_ids: g.map((l) => l.line_id), codes: [first.code], message: `no MUE table is loaded for this setting: units of ${first.code} could not be checked`, edit: null, rule: null });
        continue;
      }
      c.versions[m.dataset] = m.version;
      if (!m.row) continue; // no MUE for the code: nothing limits its units
      const edit: MueEditUsed = { type: 'mue', dataset: m.dataset, version: m.version, code: first.code, ...m.row };
      const mai = m.row.mue_adj_ind;
      if (mai === 1 || mai === null) perLine(c, g, edit, mai);
      else perDate(c, g, edit, mai);
    }
  },
};
