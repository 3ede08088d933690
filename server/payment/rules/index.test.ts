import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { applyPaymentRules, PAYMENT_RULES, rowForYear, type PaymentRule } from './index.js';

describe('the payment rule registry', () => {
  it('registers every rule unit of the folder once, each with a test beside it', async () => {
    const files = await readdir(import.meta.dirname);
    const units = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts');
    const exported: PaymentRule[] = [];
    for (const f of units) {
      const mod = (await import(`./${f.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
      exported.push(...Object.values(mod).filter((v): v is PaymentRule => typeof v === 'object' && v !== null && 'apply' in v && 'id' in v));
      expect(files, `${f} has its test`).toContain(f.replace(/\.ts$/, '.test.ts'));
    }
    expect(exported.map((r) => r.id).sort()).toEqual(PAYMENT_RULES.map((r) => r.id).sort());
    expect(new Set(PAYMENT_RULES.map((r) => r.id)).size).toBe(PAYMENT_RULES.length);
  });

  it('applies the rules in their order: a -26 PT line at a VA hospital is the facility\'s rule, the line\'s, then cost sharing', () => {
    const effects = applyPaymentRules({ code: '45385', modifiers: ['26', 'PT'], year: 2026, facility: { ccn: '01014F', facility_type: 'va_acute_care_hospital', payment_system: 'federal' }, rvu_modifiers: [''] });
    expect(effects.map((e) => e.rule)).toEqual(['facility_payment_system', 'professional_only_line', 'colorectal_screening_pt']);
  });

  it('finds the row of a year, open-ended rows included, and none outside every row', () => {
    const rows = [
      { from_year: 2023, to_year: 2026, citation: 'a' },
      { from_year: 2030, to_year: null, citation: 'b' },
    ];
    expect([2022, 2023, 2026, 2027, 2030, 2099].map((y) => rowForYear(rows, y)?.citation)).toEqual([undefined, 'a', 'a', undefined, 'b', 'b']);
  });
});
