import { Dec } from '../../lib/decimal.js';
import { isoOfYmd } from '../../datasets/_shared/dates.js';
import type { X12Index } from '../../datasets/x12_codes/queries.js';
import type { JudgeContext, TxPayer } from './judge.js';
import type { ExplainInputs } from './explain.js';
import type { RemitFinding } from './schemas.js';
import type { Segment, Separators } from './x12.js';

/**
 * What every reader of an 835's segments shares: an element's text, amounts as exact decimals,
 * CCYYMMDD dates, composite elements, and findings at the segment they are about. The readers
 * themselves are units in lists (`segments.ts` for a claim's segments, `checks.ts` for what is
 * checked once a claim or transaction is read).
 */

export const num = (s: string | undefined): string => (s ?? '').trim();
export const opt = (s: string | undefined): string | null => num(s) || null;

/** CCYYMMDD as YYYY-MM-DD (null when not a calendar date). */
export function toIso(s: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(num(s));
  return m ? isoOfYmd(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/** `toIso` remembering the dates of one transaction (a file repeats a few dates thousands of times; nothing outlives the call). */
export function isoMemo(): (s: string | undefined) => string | null {
  const seen = new Map<string, string | null>();
  return (s) => {
    const t = num(s);
    let iso = seen.get(t);
    if (iso === undefined) seen.set(t, (iso = toIso(t)));
    return iso;
  };
}

/** A segment that cannot be read: it is skipped (with its claim, for a CLP) and reported. */
export class Unparseable extends Error {}

const AMOUNT = /^-?\d{1,15}(?:\.\d{0,6})?$|^-?\.\d{1,6}$/;

/** An amount element as an exact decimal (an empty element is 0 when `orZero`). */
export function money(s: string | undefined, what: string, orZero = false): Dec {
  const t = num(s);
  if (t === '' && orZero) return Dec.ZERO;
  if (!AMOUNT.test(t)) throw new Unparseable(what);
  return Dec.ofPlain(t);
}

/** An amount element that may be absent: null when empty, else exact (a bad one is unreadable). */
export const moneyOrNull = (s: string | undefined, what: string): Dec | null => (num(s) === '' ? null : money(s, what));

/** A quantity element (days, units, a rate): a finite number, or null when empty or not a number. */
export function quantity(s: string | undefined): number | null {
  const t = num(s);
  if (!/^-?\d{1,12}(?:\.\d{1,6})?$|^-?\.\d{1,6}$/.test(t)) return null;
  return Number(t);
}

export const sum = (xs: Dec[]): Dec => xs.reduce((a, b) => a.add(b), Dec.ZERO);

/** One CAS triplet as read. */
export interface RawAdj {
  group: string;
  reason: string;
  amount: Dec;
  quantity: number | null;
  seg: Segment;
}

/** One transaction's reading state shared by its readers and checks. */
export interface Ctx {
  in: ExplainInputs;
  x12: X12Index;
  sep: Separators;
  findings: RemitFinding[];
  t: number;
  interchange: number;
  /** GS08/ST03: a CR group code is 4010's, refused by 5010. */
  version: string | null;
  componentWarned: boolean;
  payer: TxPayer;
  remitDate: string;
  /** The remittance date as the file gave it (null when undated: checks against it are skipped). */
  datedRemit: string | null;
  /** What the judgements of the transaction's adjustments share (dates, memo). */
  judge: JudgeContext;
}

export function finding(c: Ctx, code: RemitFinding['code'], severity: RemitFinding['severity'], message: string, seg: Segment, claim: number | null = null, line: number | null = null): void {
  c.findings.push({ code, severity, message, loc: { interchange: c.interchange, transaction: c.t, claim, line, segment_index: seg.index, segment_id: seg.id.slice(0, 3) } });
}

/**
 * A composite element's components. A payer that uses another component separator than ISA16
 * (`HC>99213` under ISA16 `:`, LinuxForHealth's secondary-payment sample) is followed, once
 * reported.
 */
export function components(c: Ctx, s: string, seg: Segment): string[] {
  const v = s.trim();
  if (v.includes(c.sep.component)) return v.split(c.sep.component);
  const other = /^[A-Z0-9]{2}([^A-Za-z0-9 .\-])/.exec(v);
  if (other && other[1] !== c.sep.element) {
    if (!c.componentWarned) {
      c.componentWarned = true;
      finding(c, 'component_separator_mismatch', 'warning', `segment ${seg.index} (${seg.id}) separates components with '${other[1]}' while the header says '${c.sep.component}': followed`, seg);
    }
    return v.split(other[1]!);
  }
  return [v];
}
