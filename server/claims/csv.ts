import { csvRows } from '../../lib/safe_text.js';
import { predictionLabel } from './findings.js';
import type { ClaimsCheck } from './schemas.js';

const HEADER = ['file', 'patient_control_number', 'line_number', 'kind', 'status', 'predicted', 'fix', 'message', 'segment'];

/**
 * The claim check as CSV: one row per finding (claim, line and cross-claim), with the patient
 * control number, the line, the check, its status, the predicted adjustment (`CO-97`, `rejected`)
 * and the fix; passes are left out (a worklist, not the whole answer). `file` names the file in a
 * batch. RFC 4180, cells neutralised against spreadsheet formulas.
 */
export function claimCheckCsv(files: readonly { file: string | null; check: ClaimsCheck }[], header = true): string {
  const rows: (string | number | null)[][] = header ? [HEADER] : [];
  for (const { file, check } of files) {
    for (const c of check.claims) {
      const all = [...c.findings.map((f) => ({ f, line: null as number | null })), ...c.lines.flatMap((l) => l.findings.map((f) => ({ f, line: l.line_number as number | null })))];
      for (const { f, line } of all) {
        if (f.status === 'pass') continue;
        rows.push([file, c.patient_control_number, line, f.kind, f.status, predictionLabel(f), f.fix, f.message, f.segment]);
      }
    }
    for (const f of check.cross_claim_findings) {
      for (const c of f.claims) rows.push([file, c.patient_control_number, c.line_number, f.kind, f.status, predictionLabel(f), f.fix, f.message, c.segment]);
    }
  }
  return csvRows(rows);
}
