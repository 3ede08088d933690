import { filingProgramOf } from '../../lib/vocabulary/claim_filing.js';
import type { MacIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { macOfPayer } from '../../datasets/mac_jurisdictions/queries.js';
import type { PayerKnowledge } from '../../datasets/payers/queries.js';
import type { PayerRow } from '../../datasets/payers/schema.js';
import type { X12Index } from '../../datasets/x12_codes/queries.js';
import { remedyDeadline } from '../denials/deadline.js';
import { classifyDenial, denialFacts, rarcMeanings, withDeadline, type DenialFacts, type DenialRemedy } from '../denials/remedy.js';
import { searchPayers } from '../payers/service.js';
import type { RemitAdjustment, RemitClaim, RemitLine, RemitTransaction } from './schemas.js';

/**
 * Who the payer of a remittance is and what each adjustment leaves to do: the payer by its EDI id
 * or name among the curated payers, else Medicare by its contractor's number or name (the MAC
 * jurisdictions); each claim's program by its filing indicator (CLP06); each adjustment judged by
 * the denial rules table once the line's links (NCCI edit, MUE, pricing) are known.
 */

const MEDICARE_FFS = 'medicare_ffs';

export type PayerIdentification = NonNullable<RemitTransaction['payer']['identified_by']>;

/** The transaction's payer (N1*PR, REF*2U), as far as the loaded knowledge names it. */
export interface TxPayer {
  row: PayerRow | null;
  by: PayerIdentification | null;
  jurisdictions: string[];
}

function curatedPayer(k: PayerKnowledge, name: string | null, id: string | null): { row: PayerRow; by: PayerIdentification } | null {
  if (id) {
    for (const p of k.payers.values()) if (Object.values(p.edi_payer_ids ?? {}).includes(id)) return { row: p, by: 'edi_payer_id' };
  }
  if (!name) return null;
  const hits = searchPayers(k, name);
  const top = hits[0];
  if (!top || top.score < 0.75) return null;
  if (hits[1] && hits[1].score === top.score) return null;
  return { row: top.payer, by: 'name' };
}

/**
 * The payer N1*PR names: a curated payer by EDI payer id or name, else a Medicare contractor by its
 * number (N1*PR04, REF*2U) or remittance name, which applies Medicare fee-for-service's rules.
 */
export function identifyPayer(k: PayerKnowledge | null, mac: MacIndex | null, p: { name: string | null; id: string | null; ids: (string | null)[] }): TxPayer {
  const curated = k ? curatedPayer(k, p.name, p.id) : null;
  if (curated) return { ...curated, jurisdictions: [] };
  const m = mac ? macOfPayer(mac, { name: p.name, ids: p.ids }) : null;
  if (m) return { row: k?.payers.get(MEDICARE_FFS) ?? null, by: m.by === 'name' ? 'contractor_name' : 'contractor_number', jurisdictions: m.jurisdictions.map((j) => j.jurisdiction) };
  return { row: null, by: null, jurisdictions: [] };
}

/** The payer whose rules apply to one claim, and its type (a claim's program wins over the payer's). */
export interface ClaimPayer {
  row: PayerRow | null;
  type: string | null;
  planType?: string;
}

/**
 * A claim's payer: the transaction's, with the claim filing indicator (CLP06) deciding the program
 * where it names one: MA or MB is Medicare fee-for-service even when no name matched, 16 a Medicare
 * Advantage plan (whose commercial plan rules do not apply), MC a Medicaid program.
 */
export function claimPayer(tx: TxPayer, filing: string | null, k: PayerKnowledge | null): ClaimPayer {
  const program = filingProgramOf(filing);
  if (program === 'medicare') return { row: tx.row?.payer_type === 'medicare' ? tx.row : (k?.payers.get(MEDICARE_FFS) ?? tx.row), type: 'medicare' };
  if (program === 'medicare_advantage') return { row: tx.row, type: 'medicare_advantage', planType: 'medicare_advantage' };
  if (program === 'medicaid') return { row: tx.row?.payer_type === 'medicaid' ? tx.row : null, type: 'medicaid' };
  return { row: tx.row, type: tx.row?.payer_type ?? null };
}

/** An adjustment waiting for its judgement, with the line it is on (null: claim level). */
export interface PendingAdjustment {
  target: RemitAdjustment;
  line: RemitLine | null;
}

/** What the judgements of one transaction share. */
export interface JudgeContext {
  x12: X12Index;
  payers: PayerKnowledge | null;
  asOf: string;
  /** The remittance's date: appeals count from the notice. */
  noticeDate: string | null;
  /** DTM*405, else BPR16: a reopening counts from the initial determination. */
  determinationDate: string | null;
  /** Each distinct judgement, by what decides it: a day's file repeats a few thousands of times. */
  memo: Map<string, DenialRemedy>;
}

const describe = (x12: X12Index) => (code: string) => x12.byKey.get(`rarc:${code}`)?.description ?? null;

/** The linked PTP edit as the rules read it: its indicator in force, `not_in_force`, or null. */
function ptpFact(l: RemitLine | null): DenialFacts['ptp'] {
  const n = l?.ncci;
  if (!n || n.edit !== 'ptp' || !n.version_in_force) return null;
  if (n.edit_status === 'active') return n.modifier_indicator;
  if (n.edit_status === 'deleted' || n.edit_status === 'not_yet_effective') return 'not_in_force';
  if (n.edit_status === 'not_applicable') return '9';
  return null;
}

function judgeOne(j: JudgeContext, f: DenialFacts, payer: ClaimPayer, dos: string | null): DenialRemedy {
  const key = [f.group, f.carc, f.rarcs.join(','), f.claimStatus, f.payerType, f.payer, f.modifiers.join(','), f.ptp, f.mai, f.amount === null ? '' : f.amount > 0 ? '+' : '0', f.crossoverPayer?.name, f.crossoverPayer?.id, dos, payer.planType].join('|');
  let r = j.memo.get(key);
  if (!r) {
    const chosen = classifyDenial(f, j.payers);
    const { deadline, choice } = remedyDeadline(chosen, { payers: j.payers, payer: payer.row, dateOfService: dos, noticeDate: j.noticeDate, determinationDate: j.determinationDate, asOf: j.asOf, planType: payer.planType });
    j.memo.set(key, (r = withDeadline(choice, deadline, f.crossoverPayer)));
  }
  return r;
}

/** Each adjustment of a linked claim judged in place: its remedy, whose it is, its deadline and rule. */
export function judgeClaim(j: JudgeContext, claim: RemitClaim, payer: ClaimPayer, pending: PendingAdjustment[]): void {
  const claimRarcs = claim.remarks.map((r) => r.code);
  for (const { target: a, line } of pending) {
    const rarcs = line && line.remarks.length ? line.remarks.map((r) => r.code) : claimRarcs;
    const f = denialFacts({
      group: a.group,
      carc: a.reason,
      rarcs,
      remarks: rarcMeanings(rarcs, describe(j.x12)),
      claimStatus: claim.status.code,
      payerType: payer.type,
      payer: payer.row?.slug ?? null,
      modifiers: line?.modifiers ?? [],
      ptp: ptpFact(line),
      mai: line?.mue?.version_in_force ? line.mue.mai : null,
      amount: a.amount,
      crossoverPayer: claim.crossover_payer,
    });
    const r = judgeOne(j, f, payer, line?.service_from ?? claim.statement_from ?? null);
    a.responsibility = r.responsibility;
    a.remedy = r.remedy;
    a.remedy_reason = r.reason;
    a.appeal_rights = r.appeal_rights;
    a.appeal_condition = r.appeal_condition;
    a.deadline = r.deadline;
    a.citations = r.citations;
    a.rule_id = r.rule_id;
    a.other_payer = r.other_payer;
  }
  for (const line of claim.lines) {
    if (line.pricing?.status !== 'underpaid') continue;
    const f = denialFacts({ group: null, carc: null, underpayment: true, claimStatus: claim.status.code, payerType: payer.type, payer: payer.row?.slug ?? null, amount: -(line.pricing.difference ?? 0) });
    line.pricing.remedy = judgeOne(j, f, payer, line.service_from ?? claim.statement_from ?? null);
  }
}
