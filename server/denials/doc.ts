import { CARC_CLASS, CARC_CLASS_MEANING, CARC_CLASSES } from '../../lib/vocabulary/carc.js';
import type { RuleMatch } from './rules.js';
import { DENIAL_TABLE } from './table.js';

/**
 * docs/denial-rules.md, written from the table itself (server/denials/doc.test.ts fails when the
 * file differs; `UPDATE_GOLDEN=1` rewrites it outside CI): every row in order with what it matches,
 * what it answers and what it rests on, then the CARC classes the rows match on.
 */

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const list = (xs: readonly unknown[] | undefined) => (xs ? xs.join(', ') : '');

function when(w: RuleMatch): string {
  const parts: string[] = [];
  if (w.underpayment) parts.push('a line allowed less than the fee schedule');
  if (w.group) parts.push(`group ${list(w.group)}`);
  if (w.carc) parts.push(`CARC ${list(w.carc)}`);
  if (w.class) parts.push(`class ${list(w.class)}`);
  if (w.remark) parts.push(`remark meaning ${list(w.remark)}`);
  if (w.rarc) parts.push(`RARC ${list(w.rarc)}`);
  if (w.claimStatus) parts.push(`CLP02 ${list(w.claimStatus)}`);
  if (w.crossover !== undefined) parts.push(w.crossover ? 'a crossover' : 'not a crossover');
  if (w.payerType) parts.push(`payer type ${list(w.payerType)}`);
  if (w.payer) parts.push(`payer ${list(w.payer)}`);
  if (w.liability) parts.push(`liability modifier ${list(w.liability)}`);
  if (w.ptp) parts.push(`PTP indicator ${list(w.ptp)}`);
  if (w.mai) parts.push(`MUE MAI ${list(w.mai)}`);
  if (w.amount) parts.push(`amount ${w.amount.replace(/_/g, ' ')}`);
  return parts.length ? parts.join('; ') : 'anything';
}

export function denialRulesMarkdown(): string {
  const out = [
    '# Denial rules',
    '',
    'Generated from `server/denials/table.ts` by `server/denials/doc.ts` (a test fails when this file',
    'differs). Every adjustment a remittance, the denial-resolution agent or the denial-code lookup',
    'judges is matched against these rows in order; the first match decides. Rows whose id starts with',
    '`guard.` come first and no payer rule overrides them. A loaded payer\'s curated denial patterns are',
    'tried next: each reads its code as its category\'s class at that payer and continues down the',
    'table (its rule id is `payer:<slug>:<code> > <row>`, and it cites the pattern too). The last row',
    'matches anything and says `review`.',
    '',
    'Deadlines: `appeal_by` is the first level of the payer\'s appeal rules from the notice date (only a',
    'rule of the dispute\'s kind: a member\'s appeal never dates a provider\'s payment dispute);',
    '`reopen_by` the determination date (835 DTM*405, else BPR16) plus the years shown; `resubmit_by`',
    'the payer\'s initial filing limit from the date of service.',
    '',
    '| # | rule | matches | remedy | whose | appeal rights | deadline | rests on |',
    '|---|---|---|---|---|---|---|---|',
  ];
  DENIAL_TABLE.forEach((r, i) => {
    const t = r.then;
    const deadline = t.deadline ? `${t.deadline}${t.reopen_years ? ` (${t.reopen_years} year)` : ''}${t.dispute ? ` (${t.dispute})` : ''}` : '';
    out.push(`| ${i + 1} | \`${r.id}\` | ${cell(when(r.when))} | \`${t.remedy}\` | ${t.responsibility} | ${t.appeal_rights}${t.appeal_condition ? `: ${cell(t.appeal_condition)}` : ''} | ${deadline} | ${cell(r.citations.map((c) => c.title).join('; '))} |`);
  });
  out.push('', '## CARC classes', '', 'Each CARC of the X12 list (current and deactivated) is in one class (`lib/vocabulary/carc.ts`).', '', '| class | meaning | codes |', '|---|---|---|');
  for (const c of CARC_CLASSES) {
    const codes = Object.entries(CARC_CLASS)
      .filter(([, x]) => x === c)
      .map(([k]) => k);
    out.push(`| \`${c}\` | ${cell(CARC_CLASS_MEANING[c])} | ${codes.join(', ')} |`);
  }
  return out.join('\n') + '\n';
}
