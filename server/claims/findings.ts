import type { PayerKnowledge } from '../../datasets/payers/queries.js';
import type { X12Index } from '../../datasets/x12_codes/queries.js';
import { remedyDeadline } from '../denials/deadline.js';
import { classifyAcknowledgment, classifyDenial, denialFacts, rarcMeanings, withDeadline, type DenialFacts, type DenialRemedy } from '../denials/remedy.js';
import type { ClaimPayer } from '../remittances/judge.js';
import { PREDICTIONS, KIND_OF, type PredictionId } from './predictions.js';
import type { CheckKind, ClaimCheckFinding } from './schemas.js';

/** What a claim's findings share: the payer whose rules date a remedy, and the dates. */
export interface FindingContext {
  payers: PayerKnowledge | null;
  x12: X12Index | null;
  payer: ClaimPayer;
  asOf: string;
  /** Each distinct remedy, by what decides it (a file repeats the same few thousands of times). */
  memo: Map<string, DenialRemedy>;
}

/** What decides a predicted adjustment's remedy beyond its codes: the line's modifiers, the PTP indicator, the MUE's MAI. */
export interface LineFacts {
  modifiers?: readonly string[];
  ptp?: DenialFacts['ptp'];
  mai?: DenialFacts['mai'];
  dateOfService: string | null;
}

/**
 * The remedy the denial rules table gives the predicted adjustment, as a remittance explanation
 * would give it for the same group, CARC, remarks, payer and line; a rejection's is the 277CA's
 * (correct and resubmit, by the payer's filing limit).
 */
function remedyOf(c: FindingContext, id: PredictionId, f: LineFacts): DenialRemedy {
  const p = PREDICTIONS[id];
  const key = [id, c.payer.row?.slug, c.payer.type, c.payer.planType, f.modifiers?.join(','), f.ptp, f.mai, f.dateOfService].join('|');
  let r = c.memo.get(key);
  if (r) return r;
  const describe = (code: string) => c.x12?.byKey.get(`rarc:${code}`)?.description ?? null;
  const chosen =
    'rejected' in p
      ? classifyAcknowledgment({ stage: '277CA', accepted: false, medicare: c.payer.type === 'medicare' })
      : classifyDenial(
          denialFacts({ group: p.group, carc: p.carc, rarcs: p.rarc, remarks: rarcMeanings(p.rarc, describe), payerType: c.payer.type, payer: c.payer.row?.slug ?? null, modifiers: f.modifiers ?? [], ptp: f.ptp ?? null, mai: f.mai ?? null, amount: 1 }),
          c.payers,
        );
  const { deadline, choice } = remedyDeadline(chosen, { payers: c.payers, payer: c.payer.row, dateOfService: f.dateOfService, noticeDate: null, determinationDate: null, asOf: c.asOf, planType: c.payer.planType });
  c.memo.set(key, (r = withDeadline(choice, deadline)));
  return r;
}

/** A failed (or warned) check: its prediction, the fix, the remedy the table gives, every citation. */
export function predicted(c: FindingContext, id: PredictionId, o: { status?: 'fail' | 'warn'; message: string; segment: number | null; lines?: number[]; facts: LineFacts; citations?: ClaimCheckFinding['citations']; fix?: ClaimCheckFinding['fix'] }): ClaimCheckFinding {
  const p = PREDICTIONS[id];
  return {
    kind: KIND_OF[id],
    status: o.status ?? 'fail',
    message: o.message,
    fix: o.fix ?? p.fix,
    if_sent: { rejected: 'rejected' in p, group: p.group, carc: p.carc, rarc: [...p.rarc], remedy: remedyOf(c, id, o.facts) },
    citations: [...(o.citations ?? []), ...p.citations],
    segment: o.segment,
    line_numbers: o.lines ?? [],
  };
}

/** A check that passed, or that had no data to decide (`no_data`): no fix, nothing predicted. */
export function observed(kind: CheckKind, status: 'pass' | 'no_data', message: string, segment: number | null, lines: number[] = [], citations: ClaimCheckFinding['citations'] = []): ClaimCheckFinding {
  return { kind, status, message, fix: null, if_sent: null, citations, segment, line_numbers: lines };
}

/** `CO-97`, `PR-50`, or `rejected`: how the summary counts a prediction. */
export const predictionLabel = (f: Pick<ClaimCheckFinding, 'if_sent'>): string | null => (!f.if_sent ? null : f.if_sent.rejected ? 'rejected' : `${f.if_sent.group}-${f.if_sent.carc}`);
