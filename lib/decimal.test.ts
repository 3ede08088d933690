import { describe, expect, it } from 'vitest';
import { Dec, toCents } from './decimal.js';

describe('Dec: exact money arithmetic', () => {
  it('keeps every digit of RVU x GPCI x CF and rounds once, half away from zero', () => {
    // 99213 Manhattan non-facility: (1.30*1.064 + 1.35*1.162 + 0.10*1.586) * 33.4009
    const total = Dec.of(1.3).mul(1.064).add(Dec.of(1.35).mul(1.162)).add(Dec.of(0.1).mul(1.586));
    expect(total.toString()).toBe('3.11050');
    expect(total.mul('33.4009').toString()).toBe('103.893499450');
    expect(toCents(total.mul('33.4009'))).toBe(103.89);
    expect(toCents(Dec.of('1.005'))).toBe(1.01); // binary floats give 1.00
    expect(toCents(Dec.of('-2.675'))).toBe(-2.68);
    expect(Dec.of(1e-7).toString()).toBe('0.0000001');
  });

  it('reads a plain decimal without a second parse, and gives numbers as the decimal text would', () => {
    for (const t of ['0', '-0', '12', '12.', '.5', '-.5', '-12.345', '000123.4500', '999999999999999.999999']) expect(Dec.ofPlain(t).toString()).toBe(Dec.of(t).toString());
    for (const t of ['123.45', '-0.07', '1.005', '0.1', '9007199254740991', '90071992547409.93']) expect(Dec.of(t).toNumber()).toBe(Number(t));
  });

  it('takes a number of any size JavaScript writes with an exponent', () => {
    expect(Dec.of(1e21).toString()).toBe('1000000000000000000000');
    // The exact value of the double (1e308 is not exactly 10^308 in binary).
    expect(Dec.of(-1e308).toString()).toBe(BigInt(-1e308).toString());
    expect(Dec.of(1.5e20).toString()).toBe('150000000000000000000');
    expect(() => Dec.of(Infinity)).toThrow(RangeError);
  });

  it('divides exactly and rounds half away from zero, whatever the signs and scales', () => {
    // A per diem: 12,345.67 over an average stay of 4.3 days is 2,871.0860465...
    expect(Dec.of('12345.67').divRound('4.3', 2).toString()).toBe('2871.09');
    expect(Dec.of('1').divRound(8, 2).toString()).toBe('0.13'); // 0.125
    expect(Dec.of('-1').divRound(8, 2).toString()).toBe('-0.13');
    expect(Dec.of('1').divRound(-8, 2).toString()).toBe('-0.13');
    expect(Dec.of('10.5').divRound('0.25', 0).toString()).toBe('42');
    expect(() => Dec.of(1).divRound('0.00', 2)).toThrow(RangeError);
  });

  it('compares, subtracts and rounds across scales', () => {
    expect(Dec.of('1.50').compare('1.5')).toBe(0);
    expect(Dec.of('1.499').compare(1.5)).toBe(-1);
    expect(Dec.of(2).compare('-2')).toBe(1);
    expect(Dec.of('10').sub('0.01').toString()).toBe('9.99');
    expect(Dec.of('2.345').round(2).toString()).toBe('2.35');
    expect(Dec.of('2.3').round(2).toString()).toBe('2.3');
    expect(Dec.ZERO.add('0.10').toString()).toBe('0.10');
    expect(() => Dec.of('1e3')).toThrow(RangeError);
  });
});
