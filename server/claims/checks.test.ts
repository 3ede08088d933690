import { describe, expect, it } from 'vitest';
import { read837 } from './read837.js';
import { checkPlaceOfService, checkStructure, type Checking } from './checks.js';
import { claim837 } from '../../testing/x12.js';

/** A claim of the builder read back, ready for the units that need no snapshot. */
function checking(text: string): Checking {
  const [claim] = [...read837(text).each()];
  return { claim: claim!, c: { payers: null, x12: null, payer: { row: null, type: 'medicare' }, asOf: '2026-08-20', memo: new Map() }, findings: [], lineFindings: claim!.lines.map(() => []), unchecked: [], diagnoses: [] };
}

describe('claim check units that read the claim alone', () => {
  it('warns of a hospital place of service on a facility that is not a hospital (CO-5), and says nothing for a hospital', () => {
    const k = checking(claim837([{ pcn: 'POS1', lines: [{ code: '99213' }] }]).replace('*11:B:1*', '*22:B:1*'));
    checkPlaceOfService(k, { ccn: '99X001', hospital: false, type: 'ambulatory_surgical_center' });
    expect(k.lineFindings[0]).toEqual([expect.objectContaining({ kind: 'place_of_service', status: 'warn', fix: 'review', message: 'place of service 22 is a hospital setting, but ccn 99X001 is not a hospital (ambulatory surgical center)', if_sent: expect.objectContaining({ group: 'CO', carc: '5' }) })]);
    const h = checking(claim837([{ pcn: 'POS2', lines: [{ code: '99213' }] }]).replace('*11:B:1*', '*22:B:1*'));
    checkPlaceOfService(h, { ccn: '330101', hospital: true, type: 'acute_care_hospital' });
    expect(h.lineFindings[0]).toEqual([]);
    const office = checking(claim837([{ pcn: 'POS3', lines: [{ code: '99213' }] }]));
    checkPlaceOfService(office, { ccn: '99X001', hospital: false, type: 'ambulatory_surgical_center' });
    expect(office.lineFindings[0]).toEqual([]);
  });

  it('balances CLM02 against the lines in exact decimals: 0.10 + 0.20 is 0.30', () => {
    const k = checking(claim837([{ pcn: 'DEC1', total: '0.30', lines: [{ code: '99213', charge: '0.10' }, { code: '36415', charge: '0.20' }] }]));
    checkStructure(k, '2026-08-01');
    expect(k.findings.filter((f) => /CLM02/.test(f.message))).toEqual([]);
    const off = checking(claim837([{ pcn: 'DEC2', total: '0.31', lines: [{ code: '99213', charge: '0.10' }, { code: '36415', charge: '0.20' }] }]));
    checkStructure(off, '2026-08-01');
    expect(off.findings.map((f) => f.message)).toContain("CLM02 (total claim charge) is 0.31 but the lines' charges add up to 0.30: the TR3 requires them equal");
  });

  it('asks a replacement or void for the claim it replaces (REF*F8)', () => {
    const k = checking(claim837([{ pcn: 'REP1', frequency: '7', lines: [{ code: '99213' }] }]));
    checkStructure(k, '2026-08-01');
    expect(k.findings.map((f) => f.message)).toContain("a replacement (CLM05-3 7) must name the payer's claim number of the claim it replaces (REF*F8)");
  });
});
