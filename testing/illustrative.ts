/** Reliability warnings of answers read from illustrative seed versions (server/trace.ts). */
const ILLUSTRATIVE = /^(\S+) \S+ is an illustrative seed \(/;

/** The datasets an answer's warnings name as illustrative seeds, sorted. */
export function illustrativeIn(warnings: string[]): string[] {
  return warnings.flatMap((w) => ILLUSTRATIVE.exec(w)?.[1] ?? []).sort();
}

/** The warnings other than the illustrative-seed ones (what a test of another rule asserts). */
export function otherWarnings(warnings: string[]): string[] {
  return warnings.filter((w) => !ILLUSTRATIVE.test(w));
}
