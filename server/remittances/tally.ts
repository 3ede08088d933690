import { Dec, toCents } from '../../lib/decimal.js';
import { rejects } from './acks.js';
import { worklistOrder } from './batch.js';
import type { Acknowledgment, RemitAdjustment, RemitClaim, RemitTransaction, WorklistItem } from './schemas.js';

/**
 * A running sum of amounts already in cents (the answer's numbers): in integer cents while they
 * are small, exactly in `Dec` past that (an absurd amount in a file is summed right too).
 */
class CentSum {
  private cents = 0;
  private big: Dec | null = null;

  add(x: number): this {
    const c = Math.round(x * 100);
    if (!this.big && Math.abs(x) < 1e11 && Number.isSafeInteger(this.cents + c)) this.cents += c;
    else this.big = (this.big ?? Dec.of(this.cents).mul('0.01')).add(x);
    return this;
  }

  get value(): number {
    return this.big ? toCents(this.big) : this.cents / 100;
  }
}

/** The answer's counts, totals and worklist, fed claim by claim (a streamed file never holds its claims). */
export class Tally {
  claims = 0;
  lines = 0;
  adjustments = 0;
  readonly charged = new CentSum();
  readonly paid = new CentSum();
  readonly patient = new CentSum();
  readonly byGroup = new Map<string, CentSum>();
  private readonly work = new Map<string, { item: Omit<WorklistItem, 'amount'>; amount: CentSum }>();

  private add(source: WorklistItem['source'], payer: string | null, group: string, reason: string, remedy: WorklistItem['remedy'], amount: number | null, deadline: string | null): void {
    const key = `${source}\u0000${payer}\u0000${group}\u0000${reason}\u0000${remedy}`;
    let w = this.work.get(key);
    if (!w) this.work.set(key, (w = { item: { source, payer, group, reason, remedy, count: 0, earliest_deadline: null }, amount: new CentSum() }));
    w.item.count++;
    if (amount !== null) w.amount.add(amount);
    if (deadline && (w.item.earliest_deadline === null || deadline < w.item.earliest_deadline)) w.item.earliest_deadline = deadline;
  }

  claim(tx: RemitTransaction, cl: RemitClaim): void {
    this.claims++;
    this.charged.add(cl.charged);
    this.paid.add(cl.paid);
    this.patient.add(cl.patient_responsibility);
    this.lines += cl.lines.length;
    const payer = tx.payer.slug ?? tx.payer.name;
    const each = (a: RemitAdjustment) => {
      this.adjustments++;
      let g = this.byGroup.get(a.group);
      if (!g) this.byGroup.set(a.group, (g = new CentSum()));
      g.add(a.amount);
      if (a.remedy !== 'no_action') this.add('835', payer, a.group, a.reason, a.remedy, a.amount, a.deadline?.date ?? null);
    };
    cl.adjustments.forEach(each);
    for (const l of cl.lines) {
      l.adjustments.forEach(each);
      // A line allowed less than the fee schedule pays: the shortfall is worked like a denial.
      const p = l.pricing;
      if (p?.status === 'underpaid' && p.remedy && p.difference !== null) this.add('underpayment', payer, 'pricing', l.code ?? '', p.remedy.remedy, -p.difference, p.remedy.deadline?.date ?? null);
    }
  }

  /** Rejections before adjudication: corrected and resubmitted, on the same list. */
  acknowledgments(acks: Acknowledgment[]): void {
    for (const a of acks) {
      for (const t of a.transactions) if (t.remedy && t.remedy.remedy !== 'no_action') this.add('999', null, t.status?.code ?? '', t.errors[0]?.code ?? '', t.remedy.remedy, null, t.remedy.deadline?.date ?? null);
      for (const c of a.claims) {
        if (!c.remedy || c.remedy.remedy === 'no_action') continue;
        const s = c.statuses.find(rejects) ?? c.statuses[0];
        this.add('277CA', a.payer?.slug ?? a.payer?.name ?? null, s?.category ?? '', s?.status_code ?? '', c.remedy.remedy, c.charged, c.remedy.deadline?.date ?? null);
      }
    }
  }

  worklist(): WorklistItem[] {
    return [...this.work.values()]
      .map((w) => ({ ...w.item, amount: w.amount.value }))
      .sort(worklistOrder);
  }
}


