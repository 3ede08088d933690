import { describe, expect, it } from 'vitest';
import { dashed542, parsePackageNdc, productNdcOfQuery, segmentsOf, toNdc11, toProductNdc9 } from './ndc.js';

describe('NDC forms, one home (datasets/_shared/ndc.ts)', () => {
  it('gives the 11-digit billing form without dashes from each printed form, padding the short segment', () => {
    expect(toNdc11('0002-3229-30')).toBe('00002322930');
    expect(toNdc11('71610-199-30')).toBe('71610019930');
    expect(toNdc11('10022-3366-1')).toBe('10022336601');
    expect(toNdc11('00003-2187-10')).toBe('00003218710');
    expect(toNdc11('00003218710')).toBe('00003218710');
    expect(toNdc11(' 00003218710 ')).toBe('00003218710');
    expect(toNdc11('00003-187-10')).toBe('00003018710');
    expect(toNdc11('00003-2187-1')).toBe('00003218701');
    // Ten plain digits are ambiguous; wrong segment lengths are not NDCs.
    for (const bad of ['0003218710', '003-2187-10', '0003-187-10', '0002-3229', '0002-3229-3a', '12345-6789-012', '']) expect(toNdc11(bad), bad).toBeUndefined();
    expect(dashed542('00002322930')).toBe('00002-3229-30');
  });

  it('names the segment layout of a dashed NDC', () => {
    expect(segmentsOf('0002-3229-30')).toBe('4-4-2');
    expect(segmentsOf('00023229')).toBe('8');
    expect(segmentsOf('0002 3229')).toBeNull();
  });

  it('reads a typed package NDC in every accepted form, and says why a malformed one is not', () => {
    for (const s of ['0002-3229-30', '00002-3229-30', '00002322930', ' 00002322930 ']) expect(parsePackageNdc(s)).toEqual({ ok: true, ndc11: '00002322930' });
    expect(parsePackageNdc('71610-199-30')).toEqual({ ok: true, ndc11: '71610019930' });
    expect(parsePackageNdc('0002322930')).toEqual({ ok: false, msg: expect.stringMatching(/10-digit NDC needs its dashes/) });
    for (const bad of ['0002-3229', '002-3229-30', '0002-3229-3a', '12345-6789-012', '']) expect(parsePackageNdc(bad).ok).toBe(false);
  });

  it('finds the 9-digit product code a search text names, or null for words', () => {
    expect(toProductNdc9('0002-3229')).toBe('000023229');
    expect(productNdcOfQuery('0002-3229')).toBe('000023229');
    expect(productNdcOfQuery('000023229')).toBe('000023229');
    expect(productNdcOfQuery('71610-199')).toBe('716100199');
    expect(productNdcOfQuery('0002-3229-30')).toBe('000023229');
    expect(productNdcOfQuery('00002322930')).toBe('000023229');
    expect(productNdcOfQuery('strattera')).toBeNull();
  });
});

describe('NDC forms have one home', () => {
  it('no other source file defines an NDC normaliser or pads NDC segments by hand', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const root = join(import.meta.dirname, '../..');
    const found: string[] = [];
    for (const top of ['cli', 'server', 'ingest', 'datasets', 'warehouse']) {
      for (const f of await readdir(join(root, top), { recursive: true })) {
        const rel = `${top}/${f}`;
        if (!f.endsWith('.ts') || f.endsWith('.test.ts') || rel === 'datasets/_shared/ndc.ts') continue;
        (await readFile(join(root, rel), 'utf8')).split('\n').forEach((l, i) => {
          if (/function (toNdc|parse\w*Ndc|\w*Ndc11)\b|const (toNdc|parse\w*Ndc)\w* =|padStart\(5, '0'\)[^\n]*padStart\(4, '0'\)/.test(l)) found.push(`${rel}:${i + 1}: ${l.trim()}`);
        });
      }
    }
    expect(found).toEqual([]);
  });
});
