import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSeedSnapshot } from '../../testing/datasets.js';
import { claim837, remit835 } from '../../testing/x12.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { explainFile } from '../remittances/service.js';
import { Trace } from '../trace.js';
import { closeLoop } from './loop.js';
import { checkClaims } from './service.js';

// The seeds' NCCI PTP edit 11042 / 97597 (indicator 1) and practitioner MUE of 99213 (2), 2026Q3.
let snap: SnapshotReader & { close(): void };
beforeAll(async () => {
  snap = await openSeedSnapshot(['ncci_ptp_prac', 'ncci_mue_prac', 'ncci_aoc', 'x12_codes', 'payers', 'mac_jurisdictions', 'icd10cm', 'mcd_coverage', 'mcd_documents', 'mpfs_rvu']);
});
afterAll(() => snap.close());

const trace = () => new Trace(snap, () => new Date('2026-08-20T00:00:00Z'));
const check = (text: string) => checkClaims(snap, text, { asOf: '2026-08-20', today: '2026-08-20', where: {}, trace: trace() });
async function remitted(segments: string[]) {
  const e = await explainFile(snap, remit835(segments, { date: '20260815' }), '2026-08-20', trace());
  return e.transactions.flatMap((t) => t.claims);
}

describe('the loop closed: predictions against the remittance that followed', () => {
  it('marks a predicted denial the payer sent confirmed, a denial not predicted missed, a prediction not denied a false alarm', async () => {
    const sent = await check(
      claim837([
        { pcn: 'A1', lines: [{ code: '11042', charge: '300' }, { code: '97597' }] },
        { pcn: 'A2', lines: [{ code: '99213', units: 3, charge: '300' }] },
        { pcn: 'A3', lines: [{ code: '99214' }] },
      ]),
    );
    const back = await remitted([
      'CLP*A1*1*400*250*0*MB*ICN1*11',
      'SVC*HC:11042*300*250**1',
      'DTM*472*20260801',
      'CAS*CO*45*50',
      'SVC*HC:97597*100*0**1',
      'DTM*472*20260801',
      'CAS*CO*97*100',
      // Predicted CO-151 on 99213 x3; the payer paid it.
      'CLP*A2*1*300*200*0*MB*ICN2*11',
      'SVC*HC:99213*300*200**3',
      'DTM*472*20260801',
      'CAS*CO*45*100',
      // Nothing predicted; denied for medical necessity (class coverage).
      'CLP*A3*4*100*0*0*MB*ICN3*11',
      'SVC*HC:99214*100*0**1',
      'DTM*472*20260801',
      'CAS*CO*50*100',
    ]);
    const loop = closeLoop(back, [sent]);
    const outcome = (pcn: string, code: string) => loop.claims.find((c) => c.patient_control_number === pcn)!.lines.find((l) => l.code === code)!;
    expect(outcome('A1', '97597')).toMatchObject({ outcome: 'confirmed', predicted: ['CO-97'], denied: ['CO-97'], checked_line: 2, linked_by: 'code_and_date' });
    expect(outcome('A1', '11042')).toMatchObject({ outcome: 'none', denied: [] });
    expect(outcome('A2', '99213')).toMatchObject({ outcome: 'false_alarm', predicted: ['CO-151'], denied: [] });
    expect(outcome('A3', '99214')).toMatchObject({ outcome: 'missed', predicted: [], denied: ['CO-50'] });
    expect(loop.predictions).toEqual({ confirmed: 1, missed: 1, false_alarm: 1, none: 1, lines: 4, lines_not_linked: 0 });
    expect(loop.not_remitted).toEqual([]);
  });

  it('finds each check\'s prediction confirmed by a remittance that denies those lines as predicted', async () => {
    // The claims written for each check (seeds: PTP 11042/97597 indicator 1, MUE 99213 = 2, A99001 covering
    // M47.812/M47.816 for 64493 in NY, M54.16 pointed at; a duplicate line), and the remittance a Medicare contractor would send.
    const sent = await checkClaims(snap, claim837([
      { pcn: 'P1', lines: [{ code: '11042', charge: '300' }, { code: '97597' }] },
      { pcn: 'P2', lines: [{ code: '99213', units: 3, charge: '300' }] },
      { pcn: 'P3', lines: [{ code: '99214' }, { code: '99214' }] },
      { pcn: 'P4', lines: [{ code: '64493' }] },
    ]), { asOf: '2026-08-20', today: '2026-08-20', where: {}, trace: trace() });
    const back = await remitted([
      'CLP*P1*1*400*250*0*MB*ICN1*11', 'SVC*HC:11042*300*250**1', 'DTM*472*20260801', 'CAS*CO*45*50', 'SVC*HC:97597*100*0**1', 'DTM*472*20260801', 'CAS*CO*97*100', 'LQ*HE*M80',
      'CLP*P2*4*300*0*0*MB*ICN2*11', 'SVC*HC:99213*300*0**3', 'DTM*472*20260801', 'CAS*CO*151*300', 'LQ*HE*N362',
      'CLP*P3*1*200*80*0*MB*ICN3*11', 'SVC*HC:99214*100*80**1', 'DTM*472*20260801', 'CAS*CO*45*20', 'SVC*HC:99214*100*0**1', 'DTM*472*20260801', 'CAS*OA*18*100',
      'CLP*P4*4*100*0*0*MB*ICN4*11', 'SVC*HC:64493*100*0**1', 'DTM*472*20260801', 'CAS*CO*50*100', 'LQ*HE*N115',
    ]);
    const loop = closeLoop(back, [sent]);
    const confirmed = loop.claims.flatMap((c) => c.lines.filter((l) => l.outcome === 'confirmed').map((l) => `${c.patient_control_number} ${l.code} ${l.predicted.join(',')}`));
    expect(confirmed).toEqual(['P1 97597 CO-97', 'P2 99213 CO-151', 'P3 99214 OA-18', 'P4 64493 CO-50']);
    expect(loop.predictions).toMatchObject({ confirmed: 4, missed: 0, false_alarm: 0 });
  });

  it('counts a prediction across claims on the line it names: the visit in a global period, denied CO-97 M144, is confirmed', async () => {
    // seeds/mpfs_rvu PPRRVU2025_Oct.csv: 27447 GLOB DAYS 090, in force on 2025 dates.
    const sent = await checkClaims(snap, claim837([
      { pcn: 'S1', lines: [{ code: '27447', charge: '2000', date: '2025-11-03' }] },
      { pcn: 'V1', lines: [{ code: '99213', date: '2025-11-20' }] },
    ]), { asOf: '2025-12-01', today: '2025-12-01', where: {}, trace: trace() });
    expect(sent.cross_claim_findings.map((f) => f.kind)).toEqual(['global_surgery']);
    const back = await remitted(['CLP*V1*4*100*0*0*MB*ICN9*11', 'SVC*HC:99213*100*0**1', 'DTM*472*20251120', 'CAS*CO*97*100', 'LQ*HE*M144']);
    const loop = closeLoop(back, [sent]);
    expect(loop.claims[0]!.lines[0]).toMatchObject({ outcome: 'confirmed', predicted: ['CO-97'], denied: ['CO-97'] });
    expect(loop.not_remitted).toEqual(['S1']);
  });

  it('links by REF*6R first and by the billed code when the payer recoded (SVC06); leaves reversals out; lists checked claims not remitted', async () => {
    const text = claim837([{ pcn: 'B1', lines: [{ code: '99213' }, { code: '99214' }] }, { pcn: 'B2', lines: [{ code: '99213' }] }]).replace('LX*2~\nSV1*HC:99214*100*UN*1***1~\nDTP*472*D8*20260801~', 'LX*2~\nSV1*HC:99214*100*UN*1***1~\nDTP*472*D8*20260801~\nREF*6R*B1-LINE2~');
    const sent = await check(text);
    const back = await remitted([
      'CLP*B1*1*200*150*0*MB*ICN1*11',
      // The second line first, by its control number; then 99213 recoded to 99212.
      'SVC*HC:99214*100*80**1',
      'DTM*472*20260801',
      'CAS*CO*45*20',
      'REF*6R*B1-LINE2',
      'SVC*HC:99212*100*70**1*HC:99213',
      'DTM*472*20260801',
      'CAS*CO*45*30',
      'CLP*B1*22*-200*-150*0*MB*ICN0*11',
      'SVC*HC:99213*-100*-70**-1',
      'DTM*472*20260801',
      'CAS*CO*45*-30',
    ]);
    const loop = closeLoop(back, [sent]);
    expect(loop.claims).toHaveLength(1);
    expect(loop.claims[0]!.lines.map((l) => [l.code, l.checked_line, l.linked_by])).toEqual([
      ['99214', 2, 'control_number'],
      ['99212', 1, 'code_and_date'],
    ]);
    expect(loop.not_remitted).toEqual(['B2']);
  });

  it('links a resubmitted claim to its latest check', async () => {
    const first = await check(claim837([{ pcn: 'C1', lines: [{ code: '11042', charge: '300' }, { code: '97597' }] }]));
    const fixed = await check(claim837([{ pcn: 'C1', lines: [{ code: '11042', charge: '300' }, { code: '97597', mods: ['59'] }] }]));
    const back = await remitted(['CLP*C1*1*400*300*0*MB*ICN1*11', 'SVC*HC:11042*300*250**1', 'DTM*472*20260801', 'CAS*CO*45*50', 'SVC*HC:97597:59*100*50**1', 'DTM*472*20260801', 'CAS*CO*45*50']);
    expect(closeLoop(back, [first, fixed]).predictions).toMatchObject({ false_alarm: 0, none: 2 });
    expect(closeLoop(back, [fixed, first]).predictions).toMatchObject({ false_alarm: 1, none: 1 });
  });
});
