import type { Acknowledgment, RemitClaim, RemitClaimRef, RemitPerson, RemitReversal, RemitTransaction } from './schemas.js';

/**
 * `redact`: the identifiers of patients and claims replaced by tokens that are stable within one
 * answer (the same claim number is the same token everywhere, so a reversal and its correction, a
 * provider adjustment and its claim, still pair), and never the same across answers. Redacted, not
 * de-identified: dates of service, amounts and codes remain.
 */
export const REDACTED_WARNING =
  'redacted, not de-identified: names, member and subscriber ids, patient control and payer claim numbers and other identifiers are tokens stable within this answer; dates of service, amounts and codes remain';

type Kind = 'name' | 'id' | 'pcn' | 'claim' | 'ref';

export class Redactor {
  private readonly tokens = new Map<string, string>();
  private readonly issued = new Set<string>();
  private readonly counts: Record<Kind, number> = { name: 0, id: 0, pcn: 0, claim: 0, ref: 0 };

  /** The token of `value` (claim numbers share one space: a correction's REF*F8 is another claim's CLP07). */
  token(kind: Kind, value: string): string;
  token(kind: Kind, value: string | null): string | null;
  token(kind: Kind, value: string | null): string | null {
    if (value === null || value === '' || this.issued.has(value)) return value;
    const key = `${kind}\u0000${value}`;
    let t = this.tokens.get(key);
    if (!t) {
      t = `${kind.toUpperCase()}-${++this.counts[kind]}`;
      this.tokens.set(key, t);
      this.issued.add(t);
    }
    return t;
  }

  private person(p: RemitPerson | null): RemitPerson | null {
    if (!p) return null;
    const name = (s: string | null) => this.token('name', s);
    const last = name(p.last_name);
    const first = name(p.first_name);
    return { ...p, name: p.name === null ? null : [last, first].filter(Boolean).join(', '), last_name: last, first_name: first, middle_name: p.middle_name ? 'M' : null, suffix: null, id: this.token('id', p.id) };
  }

  ref(r: RemitClaimRef | null): RemitClaimRef | null {
    return r ? { ...r, patient_control_number: this.token('pcn', r.patient_control_number), payer_claim_control_number: this.token('claim', r.payer_claim_control_number) } : null;
  }

  /** A claim's identifiers replaced in place (it is about to be written). */
  claim(c: RemitClaim): void {
    c.patient_control_number = this.token('pcn', c.patient_control_number);
    c.payer_claim_control_number = this.token('claim', c.payer_claim_control_number);
    c.original_reference = this.token('claim', c.original_reference);
    c.patient = this.person(c.patient);
    c.insured = this.person(c.insured);
    c.corrected_patient = this.person(c.corrected_patient);
    c.member_id = this.token('id', c.member_id);
    c.references = c.references.map((r) => ({ ...r, value: this.token('ref', r.value) }));
    c.reversal_of = this.ref(c.reversal_of);
    c.corrected_by = this.ref(c.corrected_by);
    for (const l of c.lines) {
      l.control_number = this.token('ref', l.control_number);
      l.references = l.references.map((r) => ({ ...r, value: this.token('ref', r.value) }));
    }
  }

  /** A transaction's provider adjustment references (often a claim number). */
  transaction(t: RemitTransaction): void {
    for (const p of t.provider_adjustments) p.reference = this.token('claim', p.reference);
    for (const p of t.reconciliation.provider_adjustments) p.reference = this.token('claim', p.reference);
  }

  reversal(r: RemitReversal): RemitReversal {
    return { ...r, reversal: this.ref(r.reversal)!, corrected_by: this.ref(r.corrected_by) };
  }

  acknowledgment(a: Acknowledgment): Acknowledgment {
    return {
      ...a,
      transactions: a.transactions.map((t) => ({ ...t, claims: t.claims.map((c) => this.token('pcn', c)), segment_errors: t.segment_errors.map((e) => ({ ...e, context: e.context.map((x) => this.token('ref', x)), element_errors: e.element_errors.map((x) => ({ ...x, bad_value: this.token('ref', x.bad_value) })) })) })),
      claims: a.claims.map((c) => ({ ...c, patient_control_number: this.token('pcn', c.patient_control_number), payer_claim_control_number: this.token('claim', c.payer_claim_control_number) })),
    };
  }
}
