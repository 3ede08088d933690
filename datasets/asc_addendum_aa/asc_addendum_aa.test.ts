import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../warehouse/errors.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, parseItems, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { ascAddendumAa, ascVersionOf, type AscAddendumAaRow } from './dataset.js';
import { ascVersionFor, findAscRates, findAscRatesIn } from './queries.js';

const seed = join(REPO_ROOT, 'seeds', ascAddendumAa.id, '508-Version-Jan-2025-ASC-AA.csv');

const TITLE = 'Addendum AA -- ASC Covered Surgical Procedures for CY 2025          (Including Surgical Procedures for Which Payment is Packaged),,,,,,\r\n';
const HEADER = 'HCPCS Code,,Short Descriptor,Subject to Multiple Procedure Discounting,January 2025 Payment Indicator,January 2025  Payment Weight  ,January 2025 Payment Rate \r\n';

describe('asc_addendum_aa parser (the seed: real rows of 508-Version-Jan-2025-ASC-AA.csv)', () => {
  it('detects the seed by its header and reads the release 2025-01 from the header text', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(ascAddendumAa.detect(s)).toBe(true);
    expect(ascAddendumAa.version([s])).toEqual({ label: '2025-01', effective_date: '2025-01-01' });
  });

  it('reads every seed row, CP1252 notice, markers, quoted rates and packaged rows included, and stops at the notes', async () => {
    const { rows, rejects } = await parseAll(ascAddendumAa, seed);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(31);
    const by = new Map(rows.map((r) => [r.hcpcs_code, r]));
    expect(by.get('0102T')).toEqual({ hcpcs_code: '0102T', short_descriptor: 'Esw phy anes lat hmrl epcndl', marker: null, multiple_procedure_discount: true, payment_indicator: 'G2', payment_weight: 28.767, payment_rate: 1579.16, year: 2025 });
    // Packaged: blank weight and rate are null, never 0; not subject to discounting.
    expect(by.get('0214T')).toMatchObject({ payment_indicator: 'N1', payment_weight: null, payment_rate: null, multiple_procedure_discount: false });
    expect(by.get('27447')).toMatchObject({ payment_indicator: 'J8', payment_weight: 168.6055, payment_rate: 9255.6 });
    // Office-based P3: a rate (the PFS non-facility amount) and no weight.
    expect(by.get('11000')).toMatchObject({ payment_indicator: 'P3', payment_weight: null, payment_rate: 36.23 });
    expect(by.get('G0564')?.marker).toBe('*');
    expect(by.get('G0105')?.marker).toBe('**');
    expect(by.get('C8002')?.short_descriptor).toBe('Prep skin cell susp, automtd');
    expect(rows.some((r) => r.hcpcs_code.startsWith('NOTE'))).toBe(false);
  });

  it('takes the release from the file name when the header names no quarter, else the title year', () => {
    expect(ascVersionOf({ name: '508-Version-Apr-2025-ASC-AA.csv', text: '', lines: [TITLE, 'HCPCS Code,,Short Descriptor,Subject to Multiple Procedure Discounting,Payment Indicator,Payment Weight,Payment Rate'] })).toEqual({ label: '2025-04', effective_date: '2025-04-01' });
    expect(ascVersionOf({ name: 'addendum.csv', text: '', lines: [TITLE] })).toEqual({ label: '2025', effective_date: '2025-01-01' });
  });

  it('rejects a row with a bad indicator, a bad discount flag and a bad rate, naming each, and a repeated code', async () => {
    const p = await writeTempFile('508-Version-Jan-2025-ASC-AA.csv', TITLE + '\r\n' + HEADER + '0101T,,Esw muscskel sys nos,X,R22,2.3486,$12x8.93\r\n29881,,Knee arthroscopy/surgery,Y,A2,28.767,"$1,579.16"\r\n29881,,Knee arthroscopy/surgery,Y,A2,28.767,"$1,579.16"\r\n');
    const items = await parseItems(ascAddendumAa, p);
    expect(items[0]!.issues!.map((i) => i.loc)).toEqual([['row', 4, 'Subject to Multiple Procedure Discounting'], ['row', 4, 'Payment Indicator'], ['row', 4, 'Payment Rate']]);
    expect((items[1]!.row as AscAddendumAaRow).payment_rate).toBe(1579.16);
    expect(items[2]!.issues![0]).toMatchObject({ loc: ['row', 6, 'HCPCS Code'], type: 'duplicate_key' });
  });

  it('refuses OPPS Addendum B, whose header has no payment indicator', async () => {
    const p = await writeTempFile('January 2025 Web Addendum B.csv', ',Addendum B.- OPPS Payment by HCPCS Code for CY 2025,,,\r\nHCPCS Code,Short Descriptor,SI,APC,Relative Weight,Payment Rate\r\n');
    expect(ascAddendumAa.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseItems(ascAddendumAa, p)).rejects.toThrow(/no header row/);
  });
});

describe('asc_addendum_aa queries', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: ascAddendumAa, files: [seed] }]);
  });
  afterAll(() => snap?.close());

  it('finds a code in the release of the date, and nothing for a code that is not an ASC procedure', async () => {
    const when = { date: '2025-03-04', today: '2026-01-10' };
    const { pick, rows } = await findAscRates(snap, '66984', when);
    expect(pick).toMatchObject({ covered: true, version: { version: '2025-01' } });
    expect(rows).toEqual([expect.objectContaining({ hcpcs_code: '66984', payment_indicator: 'A2', payment_weight: 22.1206, payment_rate: 1214.31, version: '2025-01' })]);
    expect((await findAscRates(snap, '99213', when)).rows).toEqual([]);
    expect(await findAscRatesIn(snap, '2025-01', '0215T')).toEqual([expect.objectContaining({ payment_indicator: 'N1', payment_rate: null })]);
  });

  it('answers a date of another year 404 when given, and from the nearest release (not covered) without one', async () => {
    await expect(findAscRates(snap, '66984', { date: '2027-02-01', today: '2027-02-01' })).rejects.toThrow(NotFoundError);
    await expect(findAscRates(snap, '66984', { date: '2027-02-01', today: '2027-02-01' })).rejects.toThrow(/no asc_addendum_aa version loaded covers date of service 2027-02-01 \(CY2027\); the nearest loaded is 2025-01/);
    const pick = ascVersionFor(snap, { today: '2026-06-01' });
    expect(pick).toMatchObject({ covered: false, version: { version: '2025-01' } });
    expect(pick?.warning).toMatch(/no asc_addendum_aa version loaded covers today, 2026-06-01 \(CY2026\)/);
  });
});
