import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { lineCoverage } from '../policies/line_coverage.js';
import { policyIndex } from '../policies/service.js';
import type { Trace } from '../trace.js';
import type { ClaimFinding, ClaimLine } from './schemas.js';

/**
 * A Medicare claim's coverage findings (`POST /v1/ncci/validate` with `diagnoses`): each line's
 * pointed diagnoses (all of them without pointers) against the covered lists of the LCD billing
 * articles listing its code in `state` (every jurisdiction without one), through the one home the
 * 837 claim check reads too (`lineCoverage`). A line no such article lists has no finding.
 */
export async function coverageFindings(snapshot: SnapshotReader, lines: readonly ClaimLine[], pointers: readonly (number[] | null)[], diagnoses: readonly string[], state: string | null, trace: Trace): Promise<ClaimFinding[]> {
  const idx = await policyIndex(snapshot);
  const version = idx.versions.mcd_coverage;
  if (!version) {
    trace.warn('mcd_coverage is not loaded: the diagnoses were not checked against coverage documents');
    return [];
  }
  trace.use('mcd_coverage', version);
  const out: ClaimFinding[] = [];
  lines.forEach((l, i) => {
    const pointed = pointers[i] ? pointers[i]!.map((p) => diagnoses[p - 1]!) : [...diagnoses];
    const cov = lineCoverage(idx, version, { code: l.code, date: l.date_of_service, modifiers: l.modifiers }, state, pointed, diagnoses);
    if (!cov) return;
    const status = cov.verdict === 'covered' ? 'pass' : cov.verdict === 'abn_on_file' ? 'warn' : 'fail';
    out.push({ kind: 'coverage', status, line_ids: [l.line_id], codes: [l.code], message: cov.message, edit: null, rule: cov.verdict, citation: cov.citations[0] });
  });
  return out;
}
