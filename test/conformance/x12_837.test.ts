import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { X12Error } from '../../lib/x12/reader.js';
import type { Claim, ReadIssue } from '../../server/claims/model.js';
import { read837, type Claims837 } from '../../server/claims/read837.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// shared/data/x12-837 (copied 2026-12-06): the TR3 example claims as LinuxForHealth/x12 ships them
// (professional/, institutional/), imsweb/x12-parser's test files (valid and deliberately broken),
// and four 270/271/276/277 demos. Its SOURCE.md tables give each file's CLM, SV1 and SV2 counts.
const present = requireShared('x12-837/SOURCE.md', 'x12-837/professional', 'x12-837/institutional', 'x12-837/imsweb', 'x12-837/status-eligibility');
const at = (rel: string) => join(sharedDataDir(), 'x12-837', rel);
const files = (dir: string) => (present ? readdirSync(at(dir)).sort() : []);

interface Counts {
  clm: number;
  sv1: number;
  sv2: number;
}

/** SOURCE.md's tables: `dir/file` to its CLM, SV1 and SV2 counts (each `## dir/ (...)` heading opens a table). */
function sourceTable(): Map<string, Counts> {
  const out = new Map<string, Counts>();
  let dir = '';
  for (const line of readFileSync(at('SOURCE.md'), 'utf8').split('\n')) {
    const h = /^## ([a-z-]+)\//.exec(line);
    if (h) dir = h[1]!;
    const row = /^\| (\S+) \| \d+ \| [0-9a-f]+ \| (\d+) \| (\d+) \| (\d+) \|/.exec(line);
    if (row && dir) out.set(`${dir}/${row[1]}`, { clm: Number(row[2]), sv1: Number(row[3]), sv2: Number(row[4]) });
  }
  return out;
}

/**
 * SOURCE.md's counts split every file on `*` and `~`; imsweb__x12_valid_different_separators.txt
 * separates elements with `~` and segments with `_`, so its row says 0, 0, 0. Its two claims and two
 * SV1 lines are the same as x12_valid.txt's (the file is that one with other separators); `rawCounts`
 * below confirms the correction from the file itself.
 */
const CORRECTED: Record<string, Counts> = { 'imsweb/imsweb__x12_valid_different_separators.txt': { clm: 2, sv1: 2, sv2: 0 } };

/** CLM, SV1 and SV2 segments counted from the raw text apart from the reader: element separator ISA04's byte, terminator the byte after ISA16. */
function rawCounts(text: string): Counts {
  const isa = text.indexOf('ISA');
  const el = isa >= 0 ? text[isa + 3]! : '*';
  const term = isa >= 0 ? text[isa + 105]! : '~';
  const out = { clm: 0, sv1: 0, sv2: 0 };
  for (const seg of text.split(/\r?\n/).join('').split(term)) {
    const id = seg.trim().split(el)[0];
    if (id === 'CLM') out.clm++;
    else if (id === 'SV1') out.sv1++;
    else if (id === 'SV2') out.sv2++;
  }
  return out;
}

/** What the reader yields for a file, counted as SOURCE.md counts: the lines of professional claims are SV1s, of institutional ones SV2s (none of these files mixes them). */
function readCounts(file: Claims837): { counts: Counts; claims: Claim[] } {
  const claims = [...file.each()];
  const lines = (kind: Claim['kind']) => claims.filter((c) => c.kind === kind).reduce((n, c) => n + c.lines.length, 0);
  return { counts: { clm: claims.length, sv1: lines('professional'), sv2: lines('institutional') }, claims };
}

const COUNTED = /^imsweb__x12_(valid|complex|many_claims|multiple_)/;
const BROKEN = /^imsweb__x12_(bad_first_line|bad_segment_identifier|missing_elements|segments_out_of_order|loop_errors|missing_required_loop)/;

describe.skipIf(!present)('X12 837 read from the shared sample files (shared/data/x12-837)', () => {
  const table = present ? sourceTable() : new Map<string, Counts>();
  const counted = [...files('professional').map((f) => `professional/${f}`), ...files('institutional').map((f) => `institutional/${f}`), ...files('imsweb').filter((f) => COUNTED.test(f)).map((f) => `imsweb/${f}`)];

  it('finds every file SOURCE.md lists, and the ones this suite counts', () => {
    expect(table.size).toBe(files('professional').length + files('institutional').length + files('imsweb').length + files('status-eligibility').length);
    expect(counted).toHaveLength(19 + 5 + 8);
    expect(files('imsweb').filter((f) => BROKEN.test(f))).toHaveLength(9);
  });

  it.each(counted)('%s: every CLM a claim with a PCN, and as many SV1 and SV2 lines as SOURCE.md counts', (rel) => {
    const text = readFileSync(at(rel));
    const want = CORRECTED[rel] ?? table.get(rel)!;
    expect(rawCounts(text.toString('utf8'))).toEqual(want);
    const file = read837(text);
    expect(file.claims).toBe(want.clm);
    const { counts, claims } = readCounts(file);
    expect(counts).toEqual(want);
    for (const c of claims) expect(c.patient_control_number).not.toBe('');
    expect(file.kinds[want.sv2 > 0 ? 'institutional' : 'professional']).toBe(want.clm);
  });

  it.each(counted.filter((f) => f.startsWith('professional/') || f.startsWith('institutional/')))('%s: a TR3 example reads without an issue (but a component separator other than ISA16 says)', (rel) => {
    const file = read837(readFileSync(at(rel)));
    const claims = [...file.each()];
    expect(claims.flatMap((c) => c.issues)).toEqual([]);
    expect(file.issues.filter((i) => !/another character than ISA16/.test(i.message))).toEqual([]);
    for (const c of claims) {
      expect(c.kind).toBe(rel.startsWith('institutional/') ? 'institutional' : 'professional');
      expect(c.billing_provider?.npi).toMatch(/^\d{10}$/);
      expect(c.diagnoses.filter((d) => d.principal)).toHaveLength(1);
    }
  });

  it.each(files('imsweb').filter((f) => BROKEN.test(f)))('%s: a broken file throws X12Error or yields claims with issues, never anything else', (name) => {
    let file: Claims837;
    try {
      file = read837(readFileSync(at(`imsweb/${name}`)));
    } catch (e) {
      expect(e).toBeInstanceOf(X12Error);
      return;
    }
    const claims = [...file.each()];
    expect(claims.length).toBe(table.get(`imsweb/${name}`)!.clm);
    const issues = [...claims.flatMap((c) => c.issues), ...file.issues];
    expect(issues.length).toBeGreaterThan(0);
    for (const i of issues) expect(['missing_segment', 'missing_element', 'invalid_value', 'unexpected_segment']).toContain(i.code);
  });

  it('names what each broken file breaks, where it is', () => {
    const issuesOf = (name: string): Omit<ReadIssue, 'message'>[] => {
      const file = read837(readFileSync(at(`imsweb/imsweb__x12_${name}.txt`)));
      return [...[...file.each()].flatMap((c) => c.issues), ...file.issues].map(({ code, segment_id, segment, loop }) => ({ code, segment_id, segment, loop }));
    };
    // `*IC*...` (segment 6) and `NM31*IL` (segment 20) have no readable id; the subscriber then has no NM1*IL.
    expect(issuesOf('bad_segment_identifier')).toEqual(
      expect.arrayContaining([
        { code: 'unexpected_segment', segment_id: '(unreadable)', segment: 6, loop: 'header' },
        { code: 'unexpected_segment', segment_id: '(unreadable)', segment: 20, loop: '2000B' },
        { code: 'missing_segment', segment_id: 'NM1*IL', segment: 18, loop: '2010BA' },
      ]),
    );
    // The second claim's CLM05 (place of service) is empty.
    expect(issuesOf('missing_elements')).toContainEqual({ code: 'missing_element', segment_id: 'CLM', segment: 31, loop: '2300' });
    expect(issuesOf('loop_errors1_exceeds_max_1_parent')).toContainEqual({ code: 'unexpected_segment', segment_id: 'NM1*85', segment: 15, loop: '2010AA' });
    expect(issuesOf('loop_errors3_missing_loops')).toContainEqual({ code: 'missing_segment', segment_id: 'NM1*85', segment: 8, loop: '2010AA' });
    expect(issuesOf('missing_required_loop_in_one_repeat')).toContainEqual({ code: 'missing_segment', segment_id: 'NM1*IL', segment: 18, loop: '2010BA' });
    // An SV1 without its LX (segment 33), then `DTP*472*RD9` (segment 34).
    expect(issuesOf('missing_required_loops_mult_repeats')).toEqual(
      expect.arrayContaining([
        { code: 'missing_segment', segment_id: 'LX', segment: 33, loop: '2400' },
        { code: 'invalid_value', segment_id: 'DTP', segment: 34, loop: '2400' },
      ]),
    );
  });

  it.each(files('status-eligibility'))('%s: refused as x12_not_837, naming what it is', (name) => {
    try {
      read837(readFileSync(at(`status-eligibility/${name}`)));
    } catch (e) {
      expect(e).toBeInstanceOf(X12Error);
      const [i] = (e as X12Error).issues;
      expect(i).toMatchObject({ type: 'x12_not_837', loc: ['body', 'segment', 3, 'ST'] });
      expect(i!.msg).toContain(`a ${name.slice(-3)} `);
      return;
    }
    throw new Error('expected an X12Error');
  });

  it('reads lfh__demo.example1.837 as worked by hand', () => {
    const [c, ...more] = [...read837(readFileSync(at('professional/lfh__demo.example1.837'))).each()];
    expect(more).toEqual([]);
    // CLM*26463774*100.00***11:B:1; HI*BK:0340*BF:V7389; SBR09 CI; NM1*PR ... PI*999996666; HL*3 patient TED SMITH born 19730501.
    expect(c).toMatchObject({ patient_control_number: '26463774', total_charge: '100.00', place_of_service: '11', facility_qualifier: 'B', frequency: '1' });
    expect(c!.diagnoses.map((d) => [d.code, d.qualifier, d.principal, d.pointer])).toEqual([
      ['0340', 'BK', true, 1],
      ['V7389', 'BF', false, 2],
    ]);
    expect(c!.payer).toEqual({ name: 'KEY INSURANCE COMPANY', id: '999996666' });
    expect(c!.subscriber).toMatchObject({ payer_responsibility: 'P', filing_indicator: 'CI', member_id: 'JS00111223333', last_name: 'SMITH', first_name: 'JANE' });
    expect(c!.patient).toEqual({ last_name: 'SMITH', first_name: 'TED', birth_date: '1973-05-01', state: 'FL', zip: '33413' });
    // PRV*BI*PXC*203BF0100Y precedes NM1*85; the pay-to NM1*87 (OCEAN BLVD) is not the billing provider.
    expect(c!.billing_provider).toEqual({ name: 'BEN KILDARE SERVICE', npi: '1912301953', tin: '587654321', taxonomy: '203BF0100Y', state: 'FL', zip: '331110000', segment: 10 });
    // LX*3: SV1*HC:99214*35.00*UN*1.00***2, DTP*472*D8*20061010.
    expect(c!.lines[2]).toMatchObject({ line_number: 3, code: '99214', charged: '35.00', units: 1, diagnosis_pointers: [2], date_from: '2006-10-10', date_to: '2006-10-10', place_of_service: '11' });
    expect(c!.lines.map((l) => l.charged)).toEqual(['40.00', '15.00', '35.00', '10.00']);
  });

  it('reads the COB, drug and ambulance examples as worked by hand', () => {
    const one = (rel: string) => [...read837(readFileSync(at(rel))).each()][0]!;
    // cob.example3.C: the claim goes to GREAT PRAIRIES (2010BB); KEY INSURANCE is the 2330B other payer, SBR*P of 2320.
    const cob = one('professional/lfh__demo.cob.example3.C.837');
    expect(cob).toMatchObject({ payer: { name: 'GREAT PRAIRIES HEALTH', id: '567890' }, subscriber: { payer_responsibility: 'S', member_id: '22233444' }, other_payers: 1 });
    expect(cob.rendering_provider).toMatchObject({ npi: '1999996666', taxonomy: '204C00000X' });
    expect(cob.service_facility).toMatchObject({ name: 'KILDARE ASSOCIATES', npi: '1581234567', state: 'FL', zip: '33111' });
    expect(cob.lines[0]!.diagnosis_pointers).toEqual([1, 2, 3, 4]);
    // drug.example10.3: LIN**N4 on lines 2-6; SV101 `HC:J3490:::::Sod Chl ...` has a description, not modifiers.
    const drug = one('professional/lfh__demo.drug.example10.3.837');
    expect(drug.lines.map((l) => [l.code, l.ndc, l.units])).toEqual([
      ['S9500', null, 7],
      ['J0696', '00004196501', 56],
      ['J7051', '63323024910', 28],
      ['J3490', '00338004938', 7],
      ['J3490', '08290033010', 14],
      ['J3490', '08290038005', 7],
    ]);
    expect(drug.lines[3]!.modifiers).toEqual([]);
    expect(drug.lines[0]).toMatchObject({ date_from: '2004-02-01', date_to: '2004-02-07', place_of_service: '12' });
    // ambulance.example5: CLM05 `41::1` (no qualifier), REF*6R on each line, modifier RH.
    const amb = one('professional/lfh__demo.ambulance.example5.837');
    expect(amb).toMatchObject({ place_of_service: '41', facility_qualifier: null, frequency: '1' });
    expect(amb.lines.map((l) => [l.code, l.modifiers, l.control_number])).toEqual([
      ['A0427', ['RH'], '1001'],
      ['A0425', ['RH'], '1002'],
      ['A0422', ['RH'], '1003'],
      ['A0382', ['RH'], '1004'],
    ]);
  });

  it('reads the institutional examples as worked by hand', () => {
    // ppo-repriced-claim: CLM05 `13>A>1` under ISA16 `:`; a 2000C patient; a 2320 other payer; NM1*71 attending.
    const file = read837(readFileSync(at('institutional/lfh__ppo-repriced-claim.837i')));
    const [c] = [...file.each()];
    expect(c).toMatchObject({ type_of_bill: '131', statement_from: '2005-07-06', statement_to: '2005-07-06', payer: { name: 'LOCAL INSURANCE COMPANY', id: '7452723' }, other_payers: 1 });
    expect(c!.patient).toEqual({ last_name: 'JONES', first_name: 'JOY', birth_date: '1998-08-20', state: 'AZ', zip: '863030000' });
    expect(c!.rendering_provider).toMatchObject({ name: 'JOHNSON', npi: '5544332211' });
    expect(c!.lines.map((l) => [l.revenue_code, l.code, l.charged])).toEqual([
      ['0471', '92557', '178.00'],
      ['0471', '92567', '59.50'],
    ]);
    expect(file.issues).toEqual([expect.objectContaining({ segment_id: 'CLM', segment: 26 })]);
    // two-claims-single-provider: one billing provider for both; HI*BH occurrence codes are not diagnoses.
    const two = [...read837(readFileSync(at('institutional/lfh__two-claims-single-provider.837i'))).each()];
    expect(two.map((x) => [x.patient_control_number, x.billing_provider?.npi, x.subscriber.member_id, x.diagnoses.length])).toEqual([
      ['756048Q', '1234567890', '030005074', 3],
      ['756049Q', '1234567890', '123405074', 1],
    ]);
    expect(two[1]!.rendering_provider).toMatchObject({ npi: '9999999999', taxonomy: '363LP0200N' });
    const demo = [...read837(readFileSync(at('institutional/lfh__demo.837i'))).each()][0]!;
    expect(demo.diagnoses.map((d) => d.code)).toEqual(['3669', '4019', '79431']);
    expect(demo).toMatchObject({ type_of_bill: '141', payer: { name: 'MEDICARE B' }, other_payers: 1, subscriber: { member_id: '030005074A' } });
  });

  it('reads imsweb multiple_transactions: many ST..SE, each claim numbered by its transaction', () => {
    const file = read837(readFileSync(at('imsweb/imsweb__x12_multiple_transactions.txt')));
    const claims = [...file.each()];
    expect(claims).toHaveLength(file.claims);
    expect(new Set(claims.map((c) => c.transaction.index)).size).toBe(file.transactions.length);
    expect(file.transactions.reduce((n, t) => n + t.claims, 0)).toBe(claims.length);
  });
});
