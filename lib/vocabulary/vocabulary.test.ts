import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CARC_CLASS, CARC_CLASS_MEANING, CARC_CLASSES } from './carc.js';
import { DENIAL_CATEGORY_CLASS } from './denial_categories.js';
import { isDocumentationRemark, rarcMeaningOf } from './rarc.js';
import { compApcExclusionsIn } from './opps_packaging.js';
import { CLAIM_STATUS } from './claim_status.js';
import { OPPS_BILL_TYPES, typeOfBillMeaning } from './type_of_bill.js';

const SEED = join(import.meta.dirname, '../../seeds/x12_codes/claim-adjustment-reason-codes_2026-08-17.csv');

describe('the billing vocabulary', () => {
  it("has a class for every CARC of the seed's X12 list (the conformance suite checks the full list)", () => {
    const codes = [...readFileSync(SEED, 'utf8').matchAll(/^"?([A-Z]?\d+|[A-Z]\d*)"?,/gm)].map((m) => m[1]!).filter((c) => c !== 'Code');
    expect(codes.length).toBeGreaterThan(20);
    expect(codes.filter((c) => !Object.hasOwn(CARC_CLASS, c))).toEqual([]);
  });

  it('gives every class a meaning and uses every class; every denial category names a class', () => {
    expect(Object.keys(CARC_CLASS_MEANING).sort()).toEqual([...CARC_CLASSES].sort());
    expect(new Set(Object.values(CARC_CLASS)).size).toBe(CARC_CLASSES.length);
    for (const cls of Object.values(DENIAL_CATEGORY_CLASS)) expect(CARC_CLASSES).toContain(cls);
  });

  it('reads remark meanings: the listed ones, and documentation remarks by their text (never an alert)', () => {
    expect(rarcMeaningOf('MA18')).toBe('crossover');
    expect(rarcMeaningOf('toString')).toBeUndefined();
    expect(isDocumentationRemark('N999', 'Missing/incomplete/invalid operative report.')).toBe(true);
    expect(isDocumentationRemark('N998', 'Alert: missing documentation may delay future claims.')).toBe(false);
    expect(isDocumentationRemark('N257', 'Missing/incomplete/invalid billing provider/supplier primary identifier.')).toBe(false);
  });

  it('lists the comprehensive-APC exclusions from CY2015 with their citation, and none before', () => {
    expect(compApcExclusionsIn(2014)).toBeUndefined();
    expect(compApcExclusionsIn(2026)!.status_indicators).toContain('G');
    expect(compApcExclusionsIn(2026)!.citation.section).toBe('10.2.3');
    expect(Object.values(CLAIM_STATUS).filter((s) => s.forwarded).length).toBe(4);
  });

  it('names the types of bill, and those paid per line under the OPPS are hospital Part B bills', () => {
    expect(typeOfBillMeaning('131')).toBe('hospital outpatient');
    expect(typeOfBillMeaning('99')).toBeUndefined();
    expect([...OPPS_BILL_TYPES]).toEqual(['12', '13', '14']);
    for (const t of OPPS_BILL_TYPES) expect(typeOfBillMeaning(t)).toMatch(/^hospital/);
  });
});
