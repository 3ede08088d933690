/**
 * Text the CLI prints that came from a file or the data (payer and payee names, claim numbers,
 * file and zip member names, version labels, sample keys, tenant names), made safe for a terminal
 * and for a spreadsheet. An 835's N1 name is whatever its sender wrote: raw, an ESC sequence in it
 * clears the screen, moves the cursor, writes the clipboard (OSC 52) or plants a link (OSC 8).
 * Every CLI printer of such text goes through this module.
 */

/** C0 controls (newline included: the writer's own line breaks are added after), DEL and C1 (0x80-0x9F). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const hex2 = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');

/**
 * `s` with every control character shown as a visible escape (`\x1b` for ESC, `\x0a` for a newline
 * inside a value), so it prints as one line of inert text.
 */
export function terminalSafe(s: string): string {
  return s.replace(CONTROL, (c) => `\\x${hex2(c)}`);
}

/**
 * Lines for stdout: each one made terminal-safe (a newline inside a line came from the data and is
 * escaped), then ended by the writer's own line break.
 */
export function safeLines(lines: readonly string[]): string {
  return lines.map((l) => terminalSafe(l) + '\n').join('');
}

/**
 * JSON text with DEL and C1 controls as `\u00XX` escapes: `JSON.stringify` escapes C0 but writes
 * U+007F-U+009F raw. Those characters occur in JSON text only inside strings, where `\u` escapes
 * mean the same value, so a parser reads exactly what it read before.
 */
export function jsonSafe(json: string): string {
  return json.replace(/[\u007f-\u009f]/g, (c) => `\\u00${hex2(c)}`);
}

/** A value that is exactly a decimal number (`-1.08`, `42`): written as it is, never neutralised. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
/** What a spreadsheet reads as the start of a formula (OWASP CSV injection: = + - @ tab CR). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180 quoting) that neither a spreadsheet nor a terminal acts on: a text
 * beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` and quoted
 * (OWASP's CSV injection guidance), so `=HYPERLINK(...)` is shown, not run; a decimal number stays
 * a number; control characters are escaped as in `terminalSafe`.
 */
export function csvCell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  if (DECIMAL.test(s)) return s;
  const neutral = FORMULA_START.test(s);
  const text = terminalSafe(neutral ? `'${s}` : s);
  return neutral || /[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows as CSV text: every cell through `csvCell`, one line per row. */
export function csvRows(rows: readonly (readonly (string | number | null | undefined)[])[]): string {
  return rows.map((r) => r.map(csvCell).join(',') + '\n').join('');
}
