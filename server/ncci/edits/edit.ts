import type { ClaimFinding, ClaimLine } from '../schemas.js';
import type { DayLookups } from '../validate.js';

/**
 * A claim edit: one unit (a file in this folder, its test `<id>.test.ts` beside it) naming what it
 * checks, what it answers and where CMS publishes the rule. `checkClaim` folds over `CLAIM_EDITS`
 * (`index.ts`) in order; each edit adds its findings to the claim's, so the answer lists them in
 * the edits' order.
 */

/** Where an edit's rule is published: its title, and a URL or a document reference. */
export interface EditCitation {
  title: string;
  url?: string;
  document?: string;
}

/** The claim as the edits read it, and what they have found so far. */
export interface ClaimContext {
  readonly lines: readonly ClaimLine[];
  /** The lines whose code some loaded file knows on their date: the NCCI edits check only these. */
  readonly checked: readonly ClaimLine[];
  readonly setting: 'prac' | 'hosp';
  /** What the checker reads on a line's date of service. */
  dayOf(l: ClaimLine): DayLookups;
  known(l: ClaimLine): boolean;
  /** The findings so far, in the edits' order (the add-on edit reads the failed code checks). */
  readonly findings: ClaimFinding[];
  /** dataset -> version label of every NCCI file consulted. */
  readonly versions: Record<string, string>;
  readonly warnings: Set<string>;
  /** The pairs of lines the PTP edit checked. */
  pairs_checked: number;
}

export interface ClaimEdit {
  /** Its id, the name of its file and of its test. */
  id: string;
  /** The finding kinds it writes. */
  kinds: readonly ClaimFinding['kind'][];
  /** What it checks, in words. */
  applies_to: string;
  /** What it answers. */
  does: string;
  citation: EditCitation;
  check(c: ClaimContext): void;
}

/** The context of a claim's edits: its lines, the lookups of each line's date, nothing found yet. */
export function claimContext(lines: readonly ClaimLine[], setting: 'prac' | 'hosp', dayOf: (l: ClaimLine) => DayLookups): ClaimContext {
  const known = (l: ClaimLine) => dayOf(l).known(l.code);
  return { lines, checked: lines.filter(known), setting, dayOf, known, findings: [], versions: {}, warnings: new Set(), pairs_checked: 0 };
}
