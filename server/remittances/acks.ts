import { ACK_STATUS, CLAIM_STATUS_CATEGORY, ELEMENT_ERROR, GROUP_ERROR, SEGMENT_ERROR, SET_ERROR } from '../../lib/vocabulary/acknowledgments.js';
import { ownValue } from '../../lib/own.js';
import { toCents, Dec } from '../../lib/decimal.js';
import { isoOfYmd } from '../../datasets/_shared/dates.js';
import type { PayerKnowledge } from '../../datasets/payers/queries.js';
import type { PayerRow } from '../../datasets/payers/schema.js';
import { remedyDeadline } from '../denials/deadline.js';
import { classifyAcknowledgment, withDeadline } from '../denials/remedy.js';
import { npiProblem } from '../npi/provider.js';
import type { Acknowledgment, AckClaim, AckRemedy, AckTransaction, RemitFinding } from './schemas.js';
import type { Segment, Separators, Transaction } from './x12.js';

/**
 * 999 and 277CA acknowledgments explained: what the receiver (999, per submitted transaction) or
 * the payer's front end (277CA, per claim) accepted or rejected before any adjudication, each
 * code in words, and what to do: nothing while accepted; correct and resubmit a rejection, with
 * no appeal rights, before the timely-filing limit of the payer (`classifyAcknowledgment`).
 */


const num = (s: string | undefined): string => (s ?? '').trim();
const opt = (s: string | undefined): string | null => num(s) || null;
const codes = (table: Record<string, string>, els: (string | undefined)[]) => els.map(num).filter(Boolean).map((code) => ({ code, meaning: ownValue(table, code) ?? null }));

function toIso(s: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(num(s));
  return m ? isoOfYmd(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/** A DTP date or range (`D8` CCYYMMDD, `RD8` CCYYMMDD-CCYYMMDD). */
function dtp(seg: Segment): { from: string | null; to: string | null } {
  const [a, b] = num(seg.el[2]).split('-');
  const from = toIso(a);
  return { from, to: b ? toIso(b) : from };
}

/** The first component-separated parts of an element (STC01 `A7:562:85`), whatever separator the payer used. */
function parts(v: string | undefined, sep: Separators): string[] {
  const t = num(v);
  if (t.includes(sep.component)) return t.split(sep.component);
  const other = /^[A-Z0-9]{1,3}([^A-Za-z0-9 .\-])/.exec(t);
  return other ? t.split(other[1]!) : [t];
}

export interface AckInputs {
  payers: PayerKnowledge | null;
  asOf: string;
  match: (name: string | null, id: string | null) => PayerRow | null;
  /** Where the 277CA's findings go (its NPIs, its codes no loaded list describes). */
  findings?: RemitFinding[];
}

function ackFinding(inputs: AckInputs, tx: Transaction, code: RemitFinding['code'], severity: RemitFinding['severity'], message: string, seg: Segment): void {
  inputs.findings?.push({ code, severity, message, loc: { interchange: tx.interchange, transaction: null, claim: null, line: null, segment_index: seg.index, segment_id: seg.id.slice(0, 3) } });
}

/** The remedy of an acknowledged transaction or claim, with the payer's filing deadline from the date of service. */
function remedyOf(stage: '999' | '277CA', accepted: boolean, payer: PayerRow | null, dos: string | null, inputs: AckInputs): AckRemedy {
  const rule = classifyAcknowledgment({ stage, accepted, medicare: payer?.payer_type === 'medicare' });
  const { deadline } = remedyDeadline(rule, { payers: inputs.payers, payer, dateOfService: dos, noticeDate: null, determinationDate: null, asOf: inputs.asOf });
  const r = withDeadline(rule, deadline);
  return { remedy: r.remedy, responsibility: r.responsibility, appeal_rights: r.appeal_rights, reason: r.reason, deadline: r.deadline, citations: r.citations };
}

/** Whether a 277CA status rejects its claim: a rejecting category (A3, A6, A7, A8, E0, E3, E4) or the action U (reject). */
export const rejects = (x: AckClaim['statuses'][number]): boolean => x.action === 'U' || ownValue(CLAIM_STATUS_CATEGORY, x.category)?.accepted === false;

/** What every acknowledgment says of itself: its kind, where it is, its version and date (GS04). */
const headerOf = (tx: Transaction, kind: Acknowledgment['kind']) => ({ kind, interchange: tx.interchange, control_number: tx.control_number, version: tx.version, date: toIso(tx.group_date ?? undefined) });

/** A 999: the acknowledged group (AK1, AK9) and each acknowledged transaction (AK2..IK5) with its segment and element errors. */
function explain999(tx: Transaction, inputs: AckInputs): Acknowledgment {
  const out: AckTransaction[] = [];
  let cur: AckTransaction | null = null;
  let seg3: AckTransaction['segment_errors'][number] | null = null;
  let ak1: Segment | undefined;
  let ak9: Segment | undefined;
  for (const s of tx.segments) {
    switch (s.id) {
      case 'AK1':
        ak1 = s;
        break;
      case 'AK2':
        cur = { set_id: num(s.el[0]), control_number: num(s.el[1]), version: opt(s.el[2]), status: null, errors: [], segment_errors: [], claims: [], remedy: null, segment_index: s.index };
        out.push(cur);
        seg3 = null;
        break;
      case 'IK3':
        if (!cur) break;
        seg3 = { segment_id: num(s.el[0]), position: Number(num(s.el[1])) || null, loop: opt(s.el[2]), code: opt(s.el[3]), meaning: ownValue(SEGMENT_ERROR, num(s.el[3])) ?? null, context: [], element_errors: [] };
        cur.segment_errors.push(seg3);
        break;
      case 'CTX': {
        if (!cur) break;
        const text = s.el.map(num).filter(Boolean).join(' ');
        // CTX*CLM01:<patient control number>: the claim the error is in.
        const clm = /^CLM01[^A-Za-z0-9](.+)$/.exec(num(s.el[0]));
        if (clm && !cur.claims.includes(clm[1]!)) cur.claims.push(clm[1]!);
        if (seg3) seg3.context.push(text);
        break;
      }
      case 'IK4':
        if (!seg3) break;
        seg3.element_errors.push({ position: opt(s.el[0]), reference: opt(s.el[1]), code: opt(s.el[2]), meaning: ownValue(ELEMENT_ERROR, num(s.el[2])) ?? null, bad_value: opt(s.el[3]) });
        break;
      case 'IK5':
        if (!cur) break;
        cur.status = { code: num(s.el[0]), meaning: ownValue(ACK_STATUS, num(s.el[0])) ?? null };
        cur.errors = codes(SET_ERROR, s.el.slice(1, 6));
        cur.remedy = remedyOf('999', num(s.el[0]) === 'A' || num(s.el[0]) === 'E', null, null, inputs);
        cur = null;
        seg3 = null;
        break;
      case 'AK9':
        ak9 = s;
        break;
      default:
    }
  }
  const count = (i: number) => (ak9 && /^\d+$/.test(num(ak9.el[i])) ? Number(num(ak9.el[i])) : null);
  return {
    ...headerOf(tx, '999'),
    acknowledged_group: ak1 ? { functional_id: num(ak1.el[0]), control_number: num(ak1.el[1]), version: opt(ak1.el[2]) } : null,
    group_status: ak9
      ? { code: num(ak9.el[0]), meaning: ownValue(ACK_STATUS, num(ak9.el[0])) ?? null, transactions_included: count(1), transactions_received: count(2), transactions_accepted: count(3), errors: codes(GROUP_ERROR, ak9.el.slice(4, 9)) }
      : null,
    transactions: out,
    payer: null,
    claims: [],
  };
}

/**
 * A 277CA: the payer (HL 20, NM1*PR) and each claim (HL PT: TRN*2 the patient control number,
 * STC the statuses, REF*1K the payer's claim number, DTP*472 the service dates, STC04 the charge).
 */
function explain277(tx: Transaction, sep: Separators, inputs: AckInputs): Acknowledgment {
  let level = '';
  let payerName: string | null = null;
  let payerId: string | null = null;
  let provider: { name: string | null; npi: string | null } = { name: null, npi: null };
  const claims: (AckClaim & { seg: Segment })[] = [];
  let claim: (AckClaim & { seg: Segment }) | null = null;
  let firstStc: Segment | null = null;
  for (const s of tx.segments) {
    switch (s.id) {
      case 'HL':
        level = num(s.el[2]);
        claim = null;
        break;
      case 'NM1': {
        const who = num(s.el[0]);
        const name = [num(s.el[2]), num(s.el[3])].filter(Boolean).join(', ') || null;
        if (who === 'PR') {
          payerName = opt(s.el[2]);
          payerId = opt(s.el[8]);
        } else if (who === '85') {
          provider = { name, npi: num(s.el[7]) === 'XX' ? opt(s.el[8]) : null };
          const problem = provider.npi ? npiProblem(provider.npi) : null;
          if (problem) ackFinding(inputs, tx, 'invalid_npi', 'warning', `segment ${s.index} (NM1): the billing provider NPI is not valid: ${problem.replace(`the check digit of ${provider.npi}`, 'its check digit')}`, s);
        }
        break;
      }
      case 'TRN':
        if (level === 'PT' && num(s.el[0]) === '2') {
          claim = { patient_control_number: num(s.el[1]), payer_claim_control_number: null, billing_provider: provider, charged: null, service_from: null, service_to: null, statuses: [], accepted: null, remedy: null, seg: s };
          claims.push(claim);
        }
        break;
      case 'STC': {
        if (!claim) break;
        firstStc ??= s;
        for (const el of [s.el[0], s.el[9], s.el[10]]) {
          if (!num(el)) continue;
          const [category = '', status = null, entity = null] = parts(el, sep).map((x) => x.trim());
          claim.statuses.push({ category, category_meaning: ownValue(CLAIM_STATUS_CATEGORY, category)?.meaning ?? null, status_code: status || null, entity: entity || null, date: toIso(s.el[1]), action: opt(s.el[2]) });
        }
        const charge = num(s.el[3]);
        if (/^-?\d{1,15}(\.\d{0,6})?$/.test(charge)) claim.charged = toCents(Dec.of(charge));
        break;
      }
      case 'REF':
        if (claim && num(s.el[0]) === '1K') claim.payer_claim_control_number = opt(s.el[1]);
        break;
      case 'DTP':
        if (claim && num(s.el[0]) === '472') ({ from: claim.service_from, to: claim.service_to } = dtp(s));
        break;
      default:
    }
  }
  if (firstStc && claims.some((c) => c.statuses.some((x) => x.status_code || x.entity))) {
    ackFinding(inputs, tx, 'status_code_not_described', 'info', `segment ${firstStc.index} (STC): claim status codes (STC01-2) and entity codes (STC01-3) are given as codes: X12's external code lists 508 and 507 are not loaded (no citable copy), so only the status category is described`, firstStc);
  }
  const payer = inputs.match(payerName, payerId);
  for (const c of claims) {
    c.accepted = c.statuses.some(rejects) ? false : c.statuses.some((x) => ownValue(CLAIM_STATUS_CATEGORY, x.category)?.accepted === true) ? true : null;
    if (c.accepted !== null) c.remedy = remedyOf('277CA', c.accepted, payer, c.service_from, inputs);
  }
  return {
    ...headerOf(tx, '277CA'),
    acknowledged_group: null,
    group_status: null,
    transactions: [],
    payer: { name: payerName, id: payerId, slug: payer?.slug ?? null },
    claims: claims.map(({ seg: _, ...c }) => c),
  };
}

/** Each 999 or 277CA transaction of a file, explained. */
export function explainAcknowledgments(acks: Transaction[], sep: Separators, inputs: AckInputs): Acknowledgment[] {
  return acks.map((tx) => (tx.set_id === '999' ? explain999(tx, inputs) : explain277(tx, sep, inputs)));
}
