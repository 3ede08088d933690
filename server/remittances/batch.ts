import { Dec, toCents } from '../../lib/decimal.js';
import type { RemitClaim, RemitClaimRef, RemitExplanation, RemitReversal, WorklistItem } from './schemas.js';

/**
 * What one call remembers across its transactions and files (`rcm remit explain` of several
 * files is one call): the remittances already read, so a copy is caught, and the reversals (CLP02
 * 22), so each is paired with its correction. Holds a few strings per claim, never a claim.
 */

type MatchedBy = NonNullable<RemitReversal['matched_by']>;

/** A claim as pairing knows it. */
export interface PairingClaim {
  ref: RemitClaimRef;
  status: string;
  paid: number;
  icn: string | null;
  pcn: string;
  originalRef: string | null;
  firstDos: string | null;
  /** Where its CLP is (a finding for a reversal left unpaired). */
  loc: { interchange: number; segment_index: number };
}

interface Waiting {
  entry: RemitReversal;
  /** The reversal's claim while it is not yet written (its `corrected_by` can still be set). */
  claim: RemitClaim | null;
  key: PairingClaim;
}

const pcnDos = (c: PairingClaim) => (c.firstDos ? `${c.pcn}\u0000${c.firstDos}` : null);
const copy = (r: RemitClaimRef): RemitClaimRef => ({ ...r });

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const xs = m.get(k);
  if (xs) xs.push(v);
  else m.set(k, [v]);
}

function drop<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const xs = m.get(k);
  if (!xs) return;
  const i = xs.indexOf(v);
  if (i >= 0) xs.splice(i, 1);
  if (!xs.length) m.delete(k);
}

export class Batch {
  /** The file being read, in a batch of several; null for one file. */
  file: string | null = null;
  readonly reversals: RemitReversal[] = [];
  private readonly seen = new Map<string, { file: string | null; transaction: number }>();
  /** Reversals waiting for a correction, by their CLP07 and by patient control number and date. */
  private readonly waitingByIcn = new Map<string, Waiting[]>();
  private readonly waitingByPcnDos = new Map<string, Waiting[]>();
  private readonly waitingClaims = new Map<RemitClaim, Waiting>();
  private readonly waiting = new Set<Waiting>();
  /** Corrections not yet paired, by each key a reversal may match them on. */
  private readonly byOriginalRef = new Map<string, PairingClaim>();
  private readonly byIcn = new Map<string, PairingClaim>();
  private readonly byPcnDos = new Map<string, PairingClaim>();
  private readonly paired = new Set<PairingClaim>();

  /**
   * The same remittance read before in this call (TRN02 trace, TRN03 payer, BPR02 signed by
   * BPR03): where; else null, and it is remembered.
   */
  duplicateOf(trace: string | null, originator: string | null, signedPayment: string, transaction: number): { file: string | null; transaction: number } | null {
    if (!trace) return null;
    const key = `${trace}\u0000${originator ?? ''}\u0000${signedPayment}`;
    const first = this.seen.get(key);
    if (first) return { ...first };
    this.seen.set(key, { file: this.file, transaction });
    return null;
  }

  /**
   * A claim read (before it is written): a reversal waits for its correction, or pairs with one
   * read before it; a correction pairs with a waiting reversal (REF*F8 = its CLP07, else the same
   * CLP07, else the same patient control number and first date of service). Sets the claim's
   * `reversal_of`, `corrected_by` and `net_paid_change`.
   */
  pair(claim: RemitClaim, key: PairingClaim): void {
    if (key.status === '22') return this.reversal(claim, key);
    const found = this.match(key);
    if (!found) {
      this.remember(key);
      return;
    }
    this.link(found, claim, key);
  }

  private match(c: PairingClaim): { w: Waiting; by: MatchedBy } | null {
    const k = pcnDos(c);
    const tries: [MatchedBy, Waiting[] | undefined][] = [
      ['original_reference', c.originalRef ? this.waitingByIcn.get(c.originalRef) : undefined],
      ['payer_claim_control_number', c.icn ? this.waitingByIcn.get(c.icn) : undefined],
      ['patient_control_number_and_date', k ? this.waitingByPcnDos.get(k) : undefined],
    ];
    for (const [by, ws] of tries) if (ws?.length) return { w: ws[0]!, by };
    return null;
  }

  private wait(w: Waiting): void {
    this.waiting.add(w);
    if (w.claim) this.waitingClaims.set(w.claim, w);
    const k = pcnDos(w.key);
    if (w.key.icn) push(this.waitingByIcn, w.key.icn, w);
    if (k) push(this.waitingByPcnDos, k, w);
  }

  private unwait(w: Waiting): void {
    this.waiting.delete(w);
    if (w.claim) this.waitingClaims.delete(w.claim);
    const k = pcnDos(w.key);
    if (w.key.icn) drop(this.waitingByIcn, w.key.icn, w);
    if (k) drop(this.waitingByPcnDos, k, w);
  }

  private remember(c: PairingClaim): void {
    if (c.originalRef && !this.byOriginalRef.has(c.originalRef)) this.byOriginalRef.set(c.originalRef, c);
    if (c.icn && !this.byIcn.has(c.icn)) this.byIcn.set(c.icn, c);
    const k = pcnDos(c);
    if (k && !this.byPcnDos.has(k)) this.byPcnDos.set(k, c);
  }

  private reversal(claim: RemitClaim, key: PairingClaim): void {
    const entry: RemitReversal = { reversal: copy(key.ref), corrected_by: null, matched_by: null, reversed_paid: key.paid, corrected_paid: null, net_paid_change: null };
    this.reversals.push(entry);
    const w: Waiting = { entry, claim, key };
    // A correction read before its reversal (rarer): it was written without `reversal_of`.
    const k = pcnDos(key);
    const candidates: [MatchedBy, PairingClaim | undefined][] = [
      ['original_reference', key.icn ? this.byOriginalRef.get(key.icn) : undefined],
      ['payer_claim_control_number', key.icn ? this.byIcn.get(key.icn) : undefined],
      ['patient_control_number_and_date', k ? this.byPcnDos.get(k) : undefined],
    ];
    const hit = candidates.find(([, c]) => c && !this.paired.has(c));
    if (hit) this.settle(w, hit[1]!, hit[0]);
    else this.wait(w);
  }

  private settle(w: Waiting, c: PairingClaim, by: MatchedBy): number {
    this.paired.add(c);
    const net = toCents(Dec.of(c.paid).add(w.key.paid));
    Object.assign(w.entry, { corrected_by: copy(c.ref), matched_by: by, corrected_paid: c.paid, net_paid_change: net });
    if (w.claim) w.claim.corrected_by = copy(c.ref);
    return net;
  }

  private link(found: { w: Waiting; by: MatchedBy }, claim: RemitClaim, key: PairingClaim): void {
    this.unwait(found.w);
    claim.reversal_of = copy(found.w.key.ref);
    claim.net_paid_change = this.settle(found.w, key, found.by);
  }

  /** The reversal's claim is written: its `corrected_by` can no longer change (the pair is still in `reversals`). */
  written(claim: RemitClaim): void {
    const w = this.waitingClaims.get(claim);
    if (!w) return;
    this.waitingClaims.delete(claim);
    w.claim = null;
  }

  /** True while this reversal's claim waits for its correction. */
  isWaiting(claim: RemitClaim): boolean {
    return this.waitingClaims.has(claim);
  }

  /** Reversals no correction paired, so far. */
  unpaired(): { entry: RemitReversal; key: PairingClaim }[] {
    return [...this.waiting].map((w) => ({ entry: w.entry, key: w.key }));
  }
}

type Summary = RemitExplanation['summary'];

/** The worklist's order: earliest deadline first (none last), then the larger amount, then the reason. */
export const worklistOrder = (a: WorklistItem, b: WorklistItem): number => (a.earliest_deadline ?? '9999').localeCompare(b.earliest_deadline ?? '9999') || b.amount - a.amount || a.reason.localeCompare(b.reason);

const add = (a: number, b: number) => toCents(Dec.of(a).add(b));

/** Several files' summaries as one: counts and totals summed (each file's copies already left out). */
function sumSummaries(xs: Summary[]): Summary {
  const groups: Record<string, number> = {};
  for (const x of xs) for (const [g, v] of Object.entries(x.totals.adjusted_by_group)) groups[g] = add(groups[g] ?? 0, v);
  const total = (f: (s: Summary) => number) => xs.reduce((a, s) => a + f(s), 0);
  const money = (f: (s: Summary) => number) => xs.reduce((a, s) => add(a, f(s)), 0);
  return {
    interchanges: total((s) => s.interchanges),
    transactions: total((s) => s.transactions),
    claims: total((s) => s.claims),
    service_lines: total((s) => s.service_lines),
    adjustments: total((s) => s.adjustments),
    totals: { charged: money((s) => s.totals.charged), paid: money((s) => s.totals.paid), patient_responsibility: money((s) => s.totals.patient_responsibility), adjusted_by_group: Object.fromEntries(Object.entries(groups).sort(([a], [b]) => a.localeCompare(b))) },
    findings: total((s) => s.findings),
    acknowledgments: total((s) => s.acknowledgments),
    duplicates: total((s) => s.duplicates),
  };
}

/** Several files' worklists as one: items of the same source, payer, group, reason and remedy summed, earliest deadline first. */
function sumWorklists(xs: WorklistItem[][]): WorklistItem[] {
  const by = new Map<string, WorklistItem>();
  for (const w of xs.flat()) {
    const key = [w.source, w.payer, w.group, w.reason, w.remedy].join('\u0000');
    const had = by.get(key);
    if (!had) by.set(key, { ...w });
    else {
      had.count += w.count;
      had.amount = add(had.amount, w.amount);
      if (w.earliest_deadline && (!had.earliest_deadline || w.earliest_deadline < had.earliest_deadline)) had.earliest_deadline = w.earliest_deadline;
    }
  }
  return [...by.values()].sort(worklistOrder);
}

/** What a batch of files answers beside each file's explanation: one worklist and one summary. */
export function rollUp(files: Pick<RemitExplanation, 'summary' | 'worklist'>[]): { worklist: WorklistItem[]; summary: Summary } {
  return { worklist: sumWorklists(files.map((f) => f.worklist)), summary: sumSummaries(files.map((f) => f.summary)) };
}
