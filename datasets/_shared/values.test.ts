import { describe, expect, it } from 'vitest';
import { decode, normalizeNewlines } from './source.js';
import { RowReader, clean, toDecimal, toIsoDate } from './values.js';

describe('toDecimal: published number formats', () => {
  const cases: [string | undefined, number | null | undefined][] = [
    ['00720.00', 720], // CLFS 2026 zero-padded rate
    ['$1,579.16', 1579.16], // ASC/OPPS 508 CSV money
    ['"$4,146.335"'.replace(/"/g, ''), 4146.335],
    ['19.787%', 19.787], // OPPS IRA coinsurance
    ['.5', 0.5],
    ['1', 1],
    ['  0.869 ', 0.869],
    ['NA', null],
    ['.', null], // OPPS national copay placeholder
    ['', null],
    [undefined, null],
    ['Not Available', null],
    ['1.3O', undefined],
    ['12-34', undefined],
  ];
  for (const [raw, want] of cases) it(`reads ${JSON.stringify(raw)} as ${want}`, () => expect(toDecimal(raw)).toBe(want));
});

describe('clean / dates / decoding', () => {
  it('strips spaces and non-breaking spaces (Addendum B pads codes with U+00A0)', () => {
    expect(clean('G0465\u00a0')).toBe('G0465');
    expect(clean(' B ')).toBe('B');
  });

  it('accepts YYYYMMDD, ISO and US dates and rejects impossible ones', () => {
    expect(toIsoDate('20260701')).toBe('2026-07-01');
    expect(toIsoDate('07/01/2026')).toBe('2026-07-01');
    expect(toIsoDate('07-01-2026')).toBe('2026-07-01');
    expect(toIsoDate('20260230')).toBeNull();
    expect(toIsoDate('2026-13-01')).toBeNull();
  });

  it('decodes CP1252 when the bytes are not UTF-8, and strips a UTF-8 BOM', () => {
    expect(decode(Buffer.from([0x43, 0x50, 0x54, 0xae])).text).toBe('CPT®'); // MUE notice byte
    expect(decode(Buffer.from([0x43, 0x50, 0x54, 0xae])).encoding).toBe('windows-1252');
    expect(decode(Buffer.from('\ufeffHCPCS', 'utf8'))).toEqual({ text: 'HCPCS', encoding: 'utf-8' });
    expect(normalizeNewlines('a\r\nb\nc\rd')).toBe('a\nb\nc\nd');
  });

  it('collects every bad field of a row, not only the first', () => {
    const r = new RowReader(12);
    r.text('hcpcs', '9921', { required: true, pattern: /^[A-Z0-9]{5}$/ });
    r.number('work_rvu', 'x', {});
    r.integer('mue_value', '1.5', {});
    r.date('effective_date', '20261301');
    expect(r.issues.map((i) => [i.loc.join('.'), i.type])).toEqual([
      ['row.12.hcpcs', 'string_pattern_mismatch'],
      ['row.12.work_rvu', 'float_parsing'],
      ['row.12.mue_value', 'int_parsing'],
      ['row.12.effective_date', 'date_parsing'],
    ]);
  });
});
