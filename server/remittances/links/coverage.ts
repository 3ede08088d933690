import type { SnapshotReader } from '../../../warehouse/snapshot.js';
import { coveredDiagnoses, policyIndex, policyRulesFor, type PolicyPayer } from '../../policies/service.js';
import type { Trace } from '../../trace.js';
import type { CoverageLink } from '../schemas.js';

/**
 * The coverage documents behind a medical-necessity denial: the one policy lookup payment
 * composition uses (`policyRulesFor`: Medicare billing articles and LCDs listing the code in the
 * payee's MAC jurisdictions, the payer's curated rules), and what they mean for the appeal.
 */
export async function coverageLink(snapshot: SnapshotReader, payer: PolicyPayer | null, code: string, dos: string, at: PayeeState, trace: Trace): Promise<CoverageLink> {
  const rules = payer ? await policyRulesFor(snapshot, { payer, code, date: dos, state: at.state }, trace) : [];
  const idx = rules.some((r) => r.kind === 'article') ? await policyIndex(snapshot) : null;
  const lists = rules.filter((r) => r.kind === 'article').map((r) => ({ doc_id: r.doc_id, covered_count: coveredDiagnoses(idx!, r.doc_id).length })).filter((l) => l.covered_count > 0);
  const where = at.state ? ` in ${at.state}` : '';
  const ids = [...new Set(rules.map((r) => r.doc_id))].join(', ');
  const explanation = !payer
    ? `the payer is not mapped to a curated payer and the claim is not Medicare's: its own medical policy decides ${code}; appeal with the records that support the service`
    : lists.length
      ? `${ids} list${rules.length === 1 ? 's' : ''} ${code}${where}: appeal with the records showing a diagnosis on ${lists.map((l) => `${l.doc_id}'s ${l.covered_count}-code covered list`).join(' or ')} and the documentation they require (an 835 carries no diagnoses: check the claim's); if a diagnosis was billed wrongly, correct the claim and resubmit instead`
      : rules.length
        ? `${ids} decide${rules.length === 1 ? 's' : ''} ${code}${where} by ${rules.length === 1 ? 'its' : 'their'} indications, without a covered-diagnosis list: appeal with the records that meet them`
        : `no loaded ${payer.medicare ? 'LCD or billing article' : `rule of ${payer.slug}`} lists ${code}${where}: the payer's review of the records decided; appeal with the records that support the service`;
  return { payer: payer?.slug ?? null, code, date_of_service: dos, state: at.state, state_source: at.source, rules, covered_diagnosis_lists: lists, explanation };
}

/** The payee's state for coverage documents (see `Pricer.payeeState`). */
export interface PayeeState {
  state: string | null;
  source: 'ccn' | 'locality' | 'payee_npi' | null;
}

