/**
 * Telling X12 from any other file by its first bytes, and which transaction sets it carries:
 * what `rcm remit explain` reads a folder by, and what a whole-release ingest names a remittance
 * or claim sample with (the command that uses it instead of a dataset).
 */

/** How much of a file's beginning the sniff reads: room for a preamble of prose before the ISA. */
export const HEAD_BYTES = 64 * 1024;

/**
 * An interchange header anywhere in the head, as the reader finds one (`server/remittances/x12.ts`):
 * ISA not inside a word, its element separator, then ISA01 (two digits) and the separator again.
 * That last check keeps a CSV with an "ISA" column out.
 */
const ISA = /(?:^|[^A-Za-z0-9])ISA([^A-Za-z0-9\s])\d{2}\1/;

/**
 * A file without ISA (a payer's companion-guide sample sends ST..SE alone, or a bare BPR...):
 * it starts with a segment an 835, 999 or 277CA opens with, shaped as X12 writes it: the id, a
 * separator, its first element's form, the same separator. ST01 is 3 digits, GS01 two letters,
 * BPR01 one letter, TRN01 one digit.
 */
const FIRST_SEGMENT = [/^ST([^A-Za-z0-9\s])\d{3}\1/, /^GS([^A-Za-z0-9\s])[A-Z]{2}\1/, /^BPR([^A-Za-z0-9\s])[A-Z]\1/, /^TRN([^A-Za-z0-9\s])\d\1/];

/**
 * Whether `head` (the first bytes of a file) is X12: an ISA header anywhere in it (after a
 * byte-order mark, blank lines or a paragraph of prose), or no ISA and a first segment that is
 * ST, GS, BPR or TRN. A CSV, a PDF, a README or an empty file is not.
 */
export function looksLikeX12(head: Buffer | string): boolean {
  let text = typeof head === 'string' ? head : head.subarray(0, HEAD_BYTES).toString('latin1');
  // A UTF-8 byte-order mark read as Latin-1 (EF BB BF), or as UTF-8 (U+FEFF).
  text = text.replace(/^(?:\u00ef\u00bb\u00bf|\ufeff)/, '');
  if (ISA.test(text)) return true;
  const start = text.trimStart();
  return FIRST_SEGMENT.some((re) => re.test(start));
}

/** The transaction set ids (ST01: `835`, `837`, `999`, `277`, ...) in `head`, in order of first appearance. */
export function transactionSets(head: Buffer | string): string[] {
  const text = typeof head === 'string' ? head : head.subarray(0, HEAD_BYTES).toString('latin1');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[^A-Za-z0-9])ST([^A-Za-z0-9\s])(\d{3})\1/g)) if (!out.includes(m[2]!)) out.push(m[2]!);
  return out;
}
