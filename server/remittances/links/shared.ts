import type { SnapshotReader } from '../../../warehouse/snapshot.js';
import type { Trace } from '../../trace.js';
import type { RemitClaim, RemitLine } from '../schemas.js';

/** What every link reads: the claim's setting, a line's HCPCS code and date, warnings said once. */

/** Told every `PROGRESS_EVERY` claims linked, with the file's claim count (the CLI's progress line). */
export type Progress = (claimsDone: number, claims: number) => void;
export const PROGRESS_EVERY = 1000;

/** Where the payee is, as the route's query gives it (ccn wins over locality). */
export interface PayeeLocation {
  ccn?: string;
  locality?: string;
}

/** The NCCI table a setting reads. */
export const TABLE_OF = { prac: 'practitioner', hosp: 'hospital' } as const;

/** Warnings said once per answer: a file's every denied line would repeat its version's note. */
const warned = new WeakMap<Trace, Set<string>>();
export function warnOnce(trace: Trace, message: string | undefined): void {
  if (!message) return;
  let seen = warned.get(trace);
  if (!seen) warned.set(trace, (seen = new Set()));
  if (!seen.has(message)) {
    seen.add(message);
    trace.warn(message);
  }
}


/** A claim is institutional when Part A files it (MA) or a line carries a revenue code (837I lines do). */
export function settingOf(c: RemitClaim): 'prac' | 'hosp' {
  return c.claim_filing_indicator === 'MA' || c.lines.some((l) => l.revenue_code !== null || l.code_qualifier === 'NU') ? 'hosp' : 'prac';
}

/** HCPCS/CPT codes only: NCCI edits and the fee schedule name no revenue or dental codes. */
export const hcpcsOf = (l: RemitLine): string | null => (l.code && (l.code_qualifier === 'HC' || l.code_qualifier === null) ? l.code : null);

export const dosOf = (c: RemitClaim, l: RemitLine): string | null => l.service_from ?? c.statement_from ?? null;


/** The calendar year of an OPPS Addendum B version (its effective date's). */
export function yearOfOpps(snapshot: SnapshotReader, version: string): number | null {
  const v = snapshot.versions('opps_addendum_b').find((x) => x.version === version);
  const d = v?.effective_date ?? null;
  return d ? Number(d.slice(0, 4)) : null;
}

