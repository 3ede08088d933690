import { hcpcsInvalidOn, hcpcsRelease, type HcpcsRelease } from '../../datasets/hcpcs_level2/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { lineDate, type Checking } from './checks.js';
import { observed, predicted } from './findings.js';
import type { ClaimCheckFinding } from './schemas.js';

/** A HCPCS Level II procedure code: a letter and 4 digits (CPT codes are 5 digits, or 4 digits and F/T/U). */
export const LEVEL2_CODE = /^[A-Z]\d{4}$/;
/** A HCPCS Level II modifier starts with a letter (`GA`, `JW`, `E1`); CPT's (`25`, `59`, `1P`) start with a digit. */
export const LEVEL2_MODIFIER = /^[A-Z][A-Z0-9]$/;
/** CDT dental codes (D0120 …) are ADA's and not in CMS's file: one the file lacks says nothing. */
const DENTAL = /^D\d{4}$/;

const QUARTERLY_UPDATE = 'https://www.cms.gov/medicare/coding-billing/healthcare-common-procedure-system/quarterly-update';

/** The release a finding rests on, as a citation. */
function cite(rel: HcpcsRelease, code: string, what: string): ClaimCheckFinding['citations'][number] {
  return { title: `CMS HCPCS Level II alpha-numeric file, release ${rel.version} (effective ${rel.effective_date ?? 'unknown'}): ${code} ${what}`, url: QUARTERLY_UPDATE };
}

/**
 * Code validity by date: each line's HCPCS Level II code (a letter and 4 digits, HC qualifier) and
 * Level II modifiers against the HCPCS release whose quarter contains the line's date of service.
 * A row terminated before the date (TERM DT) or not yet effective (ADD DT, or ACT EFF DT of an
 * added or reactivated code, after it) is CO-181 for a code, CO-182 for a modifier, fix
 * `correct_code`, citing the release. A code or modifier the release lacks is a finding only when
 * the release is whole (`isWholeRelease`); in a seed or an excerpt it is `no_data`. No release
 * covering the date (or none loaded): the check is `unchecked` for those lines, never judged by
 * another quarter's file.
 */
export async function checkHcpcsValidity(snapshot: SnapshotReader, k: Checking, trace: Trace): Promise<void> {
  const { claim } = k;
  const reasons = new Set<string>();
  for (const [i, l] of claim.lines.entries()) {
    const asked: { code: string; kind: 'code' | 'modifier' }[] = [];
    if (l.code && (l.code_qualifier === null || l.code_qualifier === 'HC') && LEVEL2_CODE.test(l.code)) asked.push({ code: l.code, kind: 'code' });
    for (const m of new Set(l.modifiers)) if (LEVEL2_MODIFIER.test(m)) asked.push({ code: m, kind: 'modifier' });
    if (asked.length === 0) continue;
    const dos = lineDate(claim, l);
    if (!dos) {
      reasons.add(`line ${l.line_number} has no date of service to choose a HCPCS Level II release by`);
      continue;
    }
    const rel = await hcpcsRelease(snapshot, dos);
    if (!rel) {
      reasons.add('hcpcs_level2 is not loaded');
      continue;
    }
    if (!rel.covered) {
      reasons.add(`no HCPCS Level II release covering ${dos} is loaded (${rel.warning ?? `nearest ${rel.version}`})`);
      continue;
    }
    trace.use('hcpcs_level2', rel.version);
    for (const a of asked) {
      const what = a.kind === 'code' ? 'code' : 'modifier';
      const id = a.kind === 'code' ? 'hcpcs_code_invalid_on_date' : 'hcpcs_modifier_invalid_on_date';
      const at = { segment: l.segment, lines: [l.line_number], facts: { dateOfService: dos, modifiers: l.modifiers } };
      const row = rel.codes.get(a.code);
      if (!row) {
        if (!rel.whole) k.lineFindings[i]!.push(observed(a.kind, 'no_data', `HCPCS Level II ${what} ${a.code} is not in the loaded excerpt of release ${rel.version}: its validity on ${dos} is not decided (load CMS's whole release)`, l.segment, at.lines));
        else if (!(a.kind === 'code' && DENTAL.test(a.code))) {
          k.lineFindings[i]!.push(predicted(k.c, id, { ...at, message: `${a.code} is not a HCPCS Level II ${what} in release ${rel.version}, in force on ${dos}`, citations: [cite(rel, a.code, 'is not listed')] }));
        }
        continue;
      }
      const invalid = hcpcsInvalidOn(row, dos);
      if (!invalid) continue;
      const message =
        invalid.reason === 'terminated'
          ? `HCPCS Level II ${what} ${a.code} (${row.short_description}) ended on ${invalid.since} (TERM DT, release ${rel.version}): not valid on ${dos}`
          : `HCPCS Level II ${what} ${a.code} (${row.short_description}) takes effect on ${invalid.since} (release ${rel.version}): not valid on ${dos}`;
      const fact = invalid.reason === 'terminated' ? `TERM DT ${invalid.since}` : `effective ${invalid.since}`;
      k.lineFindings[i]!.push(predicted(k.c, id, { ...at, message, citations: [cite(rel, a.code, fact)] }));
    }
  }
  for (const reason of reasons) k.unchecked.push({ check: 'hcpcs_validity', reason });
}
