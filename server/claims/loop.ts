import type { z } from 'zod';
import { CARC_CLASS, type CarcClass } from '../../lib/vocabulary/carc.js';
import { ownValue } from '../../lib/own.js';
import { ClaimLoopSchema, type LOOP_OUTCOMES, type RemitClaim } from '../remittances/schemas.js';
import type { CheckedClaim, ClaimsCheck } from './schemas.js';

/**
 * The loop closed: each remitted claim (835 CLP01) linked to the claim checked before it was sent
 * (837 CLM01; a resubmission links to the latest checked), each remitted line to its checked line
 * (REF*6R first, then the next unlinked line of the same code, SVC06 when the payer recoded, and
 * date), and each line marked by what was predicted against what the payer did: `confirmed` (a
 * denial of the predicted CARC's class), `missed` (denied, nothing of that class predicted),
 * `false_alarm` (predicted, not denied), `none`. A line is denied when it has an adjustment of a
 * denial class: not contractual, the patient's share, sequestration or a payment increase.
 */

const NOT_DENIAL: ReadonlySet<CarcClass> = new Set(['contractual', 'patient_share', 'sequestration', 'payment_increase']);

export type ClaimLoop = z.output<typeof ClaimLoopSchema>;

type CheckedLine = CheckedClaim['lines'][number];

const classOf = (carc: string | null | undefined): CarcClass | undefined => (carc ? ownValue(CARC_CLASS, carc) : undefined);

type Predicted = { label: string; cls: CarcClass | undefined };

/** The line's predicted adjustments: its failed findings' (a structural rejection predicts no CARC), and those across claims that name it last (the later duplicate, the visit in a global period). */
function predictions(l: CheckedLine, across: readonly Predicted[] = []): Predicted[] {
  return [...l.findings.filter((f) => f.status === 'fail' && f.if_sent && !f.if_sent.rejected).map((f) => ({ label: `${f.if_sent!.group}-${f.if_sent!.carc}`, cls: classOf(f.if_sent!.carc) })), ...across];
}

/** Links the remitted lines to the checked lines of one claim: REF*6R, then code (SVC06 when recoded) and date in order. */
function linkLines(remit: RemitClaim, checked: CheckedClaim): ({ line: CheckedLine; by: 'control_number' | 'code_and_date' } | null)[] {
  const free = new Set(checked.lines);
  const byControl = new Map(checked.lines.filter((l) => l.control_number).map((l) => [l.control_number!, l]));
  return remit.lines.map((r) => {
    const c = r.control_number ? byControl.get(r.control_number) : undefined;
    if (c && free.has(c)) {
      free.delete(c);
      return { line: c, by: 'control_number' };
    }
    const code = r.original_code ?? r.code;
    const next = [...free].find((l) => l.code === code && (!r.service_from || !l.date_of_service || l.date_of_service === r.service_from));
    if (!next) return null;
    free.delete(next);
    return { line: next, by: 'code_and_date' };
  });
}

/** The loop of remitted claims against the checks of the claims sent (the later of two checks of one CLM01 wins). */
export function closeLoop(remitted: readonly RemitClaim[], checks: readonly ClaimsCheck[]): ClaimLoop {
  const checked = new Map<string, CheckedClaim>();
  const across = new Map<string, Predicted[]>();
  for (const c of checks) {
    for (const claim of c.claims) checked.set(claim.patient_control_number, claim);
    for (const f of c.cross_claim_findings) {
      const denied = f.claims.at(-1);
      if (f.status !== 'fail' || !denied || f.if_sent.rejected) continue;
      const key = `${denied.patient_control_number}|${denied.line_number}`;
      across.set(key, [...(across.get(key) ?? []), { label: `${f.if_sent.group}-${f.if_sent.carc}`, cls: classOf(f.if_sent.carc) }]);
    }
  }
  const seen = new Set<string>();
  const counts = { confirmed: 0, missed: 0, false_alarm: 0, none: 0, lines: 0, lines_not_linked: 0 };
  const claims: ClaimLoop['claims'] = [];
  for (const r of remitted) {
    // A reversal takes back an earlier payment: it says nothing of the prediction.
    if (r.status.code === '22') continue;
    const c = checked.get(r.patient_control_number);
    if (c) seen.add(r.patient_control_number);
    const links = c ? linkLines(r, c) : r.lines.map(() => null);
    const lines = r.lines.map((l, i) => {
      const link = links[i] ?? null;
      const predicted = link ? predictions(link.line, across.get(`${r.patient_control_number}|${link.line.line_number}`)) : [];
      const denied = l.adjustments.filter((a) => a.amount > 0 && !NOT_DENIAL.has(classOf(a.reason) ?? 'contractual')).map((a) => ({ label: `${a.group}-${a.reason}`, cls: classOf(a.reason) }));
      const outcome: (typeof LOOP_OUTCOMES)[number] = !link ? 'none' : denied.some((d) => predicted.some((p) => p.cls === d.cls)) ? 'confirmed' : denied.length ? 'missed' : predicted.length ? 'false_alarm' : 'none';
      counts.lines++;
      if (!link) counts.lines_not_linked++;
      else counts[outcome]++;
      return { code: l.code, date_of_service: l.service_from, checked_line: link?.line.line_number ?? null, linked_by: link?.by ?? null, predicted: predicted.map((p) => p.label), denied: denied.map((d) => d.label), outcome };
    });
    claims.push({ patient_control_number: r.patient_control_number, payer_claim_control_number: r.payer_claim_control_number, checked: !!c, lines });
  }
  return { claims, predictions: counts, not_remitted: [...checked.keys()].filter((k) => !seen.has(k)) };
}
