import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PaymentAdjustmentSchema } from '../schemas.js';
import { ADJUSTMENT_RULES, applyPaymentRules, OPPS_MODIFIERS, PAYMENT_RULES, POLICY_MODIFIERS, PRICING_RULE_MODIFIERS } from './index.js';
import { rowForYear, type PaymentRule } from './rule.js';

const dir = import.meta.dirname;
const isRule = (v: unknown): v is PaymentRule => typeof v === 'object' && v !== null && 'id' in v && 'citation' in v && 'block' in v;

describe('the payment rule registry', () => {
  it('registers every rule unit of the folder once, each in the file named by its id', async () => {
    const files = await readdir(dir);
    const units = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts' && f !== 'rule.ts');
    const exported: PaymentRule[] = [];
    for (const f of units) {
      const mod = (await import(/* @vite-ignore */ `./${f.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
      const rules = Object.values(mod).filter(isRule);
      expect(rules.map((r) => `${r.id}.ts`), `${f} declares the one rule it is named after`).toEqual([f]);
      exported.push(...rules);
    }
    expect(exported.map((r) => r.id).sort()).toEqual(PAYMENT_RULES.map((r) => r.id).sort());
    expect(new Set(PAYMENT_RULES.map((r) => r.id)).size).toBe(PAYMENT_RULES.length);
  });

  it('gives every rule a citation (a title and a URL or a document), what it applies to and does, and a hook', () => {
    for (const r of PAYMENT_RULES) {
      expect(r.citation.title.trim(), r.id).not.toBe('');
      expect(r.citation.url ?? r.citation.document ?? '', `${r.id} cites a URL or a document`).not.toBe('');
      if (r.citation.url !== undefined) expect(r.citation.url, r.id).toMatch(/^https:\/\/[a-z0-9.-]+\.(gov|org)\//);
      expect(r.applies_to.trim(), r.id).not.toBe('');
      expect(r.does.trim(), r.id).not.toBe('');
      const hooks = ['line', 'rowChosen', 'hospitalSetting', 'oppsUnpriced', 'gather', 'physician', 'physicianFormula', 'outpatient', 'asc', 'costSharing'] as const;
      expect(hooks.filter((h) => r[h] !== undefined).length, `${r.id} acts at a stage`).toBeGreaterThan(0);
    }
  });

  it('has a test for every rule, named by its id and naming it', async () => {
    for (const r of PAYMENT_RULES) {
      const text = await readFile(join(dir, `${r.id}.test.ts`), 'utf8').catch(() => '');
      expect(text, `${r.id}.test.ts exists`).not.toBe('');
      expect(text.includes(r.id), `${r.id}.test.ts names ${r.id}`).toBe(true);
    }
  });

  it('derives the answer\'s adjustment rules and the modifier sets from the rules', () => {
    expect(PaymentAdjustmentSchema.shape.rule.options).toEqual(ADJUSTMENT_RULES);
    expect([...ADJUSTMENT_RULES].sort()).toEqual(['anesthesia_medical_direction', 'assistant_at_surgery', 'bilateral', 'cah_method_ii', 'co_surgeon', 'multiple_procedure', 'off_campus_department', 'rural_emergency_hospital']);
    expect([...POLICY_MODIFIERS].sort()).toEqual(['50', '51', '62', '66', '80', '81', '82', 'AS']);
    expect([...OPPS_MODIFIERS]).toEqual(['PN', 'PO']);
    // PT and 33 set the cost sharing only: they price nothing, so the lab and DME lookups may read them.
    expect(PRICING_RULE_MODIFIERS.has('52') && PRICING_RULE_MODIFIERS.has('QK') && !PRICING_RULE_MODIFIERS.has('PT') && !PRICING_RULE_MODIFIERS.has('33')).toBe(true);
  });

  it('applies the rules in their order: a -26 PT line at a VA hospital is the facility\'s rule, the line\'s, then cost sharing', () => {
    const effects = applyPaymentRules({ code: '45385', modifiers: ['26', 'PT'], year: 2026, figures: null, facility: { ccn: '01014F', facility_type: 'va_acute_care_hospital', payment_system: 'federal' }, rvu_modifiers: [''] });
    expect(effects.map((e) => e.rule)).toEqual(['facility_payment_system', 'professional_only_line', 'colorectal_screening_pt']);
  });

  it('orders the physician rules as the manual composes them: bilateral, multiple procedure, co-surgeon, team, assistant, then CAH Method II', () => {
    const at = PAYMENT_RULES.filter((r) => r.physician).map((r) => r.id);
    expect(at).toEqual(['bilateral', 'multiple_procedure', 'co_surgeon', 'team_surgery', 'assistant_at_surgery', 'cah_method_ii']);
    const shared = PAYMENT_RULES.filter((r) => r.costSharing).map((r) => r.id);
    expect(shared).toEqual(['preventive_services', 'colorectal_screening_pt', 'advance_care_planning_with_awv', 'part_b_deductible', 'part_b_coinsurance', 'clinical_lab_tests', 'opps_copayment']);
  });

  it('finds the row of a year, open-ended rows included, and none outside every row', () => {
    const rows = [
      { from_year: 2023, to_year: 2026, citation: 'a' },
      { from_year: 2030, to_year: null, citation: 'b' },
    ];
    expect([2022, 2023, 2026, 2027, 2030, 2099].map((y) => rowForYear(rows, y)?.citation)).toEqual([undefined, 'a', 'a', undefined, 'b', 'b']);
  });
});
