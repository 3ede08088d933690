import { describe, expect, it } from 'vitest';
import { X12Error, type X12Issue } from '../../lib/x12/reader.js';
import { remit835 } from '../../testing/x12.js';
import type { Claim, ReadIssue } from './model.js';
import { read837 } from './read837.js';

/**
 * A hand-written 837: `body` is the segments between ST and SE written with `*` and `:`, put in one
 * ISA/GS envelope (ISA is segment 1, GS 2, ST 3, so body[i] is segment i + 4) with the separators
 * asked for.
 */
function x837(body: string[], o: { version?: string | null; el?: string; comp?: string; isa16?: string; term?: string } = {}): string {
  const el = o.el ?? '*';
  const comp = o.comp ?? ':';
  const term = o.term ?? '~\n';
  const version = o.version === undefined ? '005010X222A1' : o.version;
  const inner = [['ST', '837', '0001', version ?? ''].join('*'), ...body];
  const segs = [
    ['ISA', '00', '          ', '00', '          ', 'ZZ', 'SUBMITTER      ', 'ZZ', 'RECEIVER       ', '251015', '1200', '^', '00501', '000000001', '0', 'T', o.isa16 ?? comp].join(el),
    ...[['GS', 'HC', 'SUBMITTER', 'RECEIVER', '20251015', '1200', '1', 'X', version ?? ''].join('*'), ...inner, `SE*${inner.length + 1}*0001`, 'GE*1*1', 'IEA*1*000000001'].map((s) => s.replaceAll(':', comp).replaceAll('*', el)),
  ];
  return segs.join(term) + term;
}

/** The 1-based file position of the first body segment starting with `prefix` (body[i] is segment i + 4). */
const at = (body: string[], prefix: string, from = 0): number => {
  const i = body.findIndex((s, k) => k >= from && s.startsWith(prefix));
  if (i < 0) throw new Error(`no ${prefix} in the body`);
  return i + 4;
};

const claimsOf = (text: string): Claim[] => [...read837(text).each()];

function x12Issues(f: () => unknown): X12Issue[] {
  try {
    f();
  } catch (e) {
    if (e instanceof X12Error) return e.issues;
    throw e;
  }
  throw new Error('expected an X12Error');
}

const HEADER = ['BHT*0019*00*244579*20251015*1023*CH', 'NM1*41*2*PREMIER BILLING SERVICE*****46*TGJ23', 'NM1*40*2*KEY INSURANCE COMPANY*****46*66783JJT'];

/** 837P: a subscriber with a dependent patient (2000C), a secondary payer loop (2320/2330), two lines (one adjudicated by the other payer, 2430). */
const PROFESSIONAL = [
  ...HEADER,
  'HL*1**20*1',
  'PRV*BI*PXC*207Q00000X',
  'NM1*85*2*RIVERSIDE CLINIC*****XX*1912301953',
  'N3*234 SEAWAY ST',
  'N4*MIAMI*FL*331110000',
  'REF*EI*587654321',
  'NM1*87*2',
  'N3*PO BOX 99',
  'N4*ATLANTA*GA*30301',
  'HL*2*1*22*1',
  'SBR*P**GRP01******CI',
  'NM1*IL*1*SMITH*JANE****MI*JS001',
  'N3*236 N MAIN ST',
  'N4*MIAMI*FL*33413',
  'DMG*D8*19700101*F',
  'NM1*PR*2*KEY INSURANCE COMPANY*****PI*999996666',
  'N4*ATLANTA*GA*30302',
  'HL*3*2*23*0',
  'PAT*19',
  'NM1*QC*1*SMITH*TED',
  'N3*236 N MAIN ST',
  'N4*MIAMI*FL*33414',
  'DMG*D8*20100501*M',
  'CLM*PCN1001*155.00***11:B:7*Y*A*Y*Y',
  'REF*F8*ICN998877',
  'REF*G1*AUTH555',
  'HI*ABK:M47812*ABF:E119*ABF:I10',
  'NM1*82*1*WELBY*MARCUS****XX*1234567893',
  'PRV*PE*PXC*207X00000X',
  'NM1*77*2*RIVERSIDE ASC*****XX*1581234567',
  'N3*100 MAIN ST',
  'N4*ORLANDO*FL*32801',
  'SBR*S*18*******MC',
  'AMT*D*20.00',
  'OI***Y***Y',
  'NM1*IL*1*SMITH*JANE****MI*MCD777',
  'N4*TAMPA*FL*33601',
  'NM1*PR*2*STATE MEDICAID*****PI*77777',
  'NM1*82*1',
  'LX*1',
  'SV1*HC:99214:25*100.00*UN*1***1:3',
  'DTP*472*D8*20251003',
  'REF*6R*LINEA1',
  'SVD*77777*0*HC:99214**1',
  'CAS*CO*45*100',
  'DTP*573*D8*20251101',
  'LX*2',
  'SV1*HC:J1100:JW:59:XU:76*55.00*UN*2.5*22**2',
  'DTP*472*RD8*20251003-20251005',
  'REF*G1*LINEAUTH',
  'LIN**N4*00009003402',
  'CTP****2*UN',
  'NM1*82*1*KILDARE*BEN****XX*1999996666',
];

/** 837I: type of bill 131, statement and admission dates, diagnoses among value, occurrence, condition and procedure codes, a revenue-code-only line. */
const INSTITUTIONAL = [
  'BHT*0019*00*0123*20250918*0932*CH',
  'NM1*41*2*JONES HOSPITAL*****46*12345',
  'NM1*40*2*MEDICARE*****46*00120',
  'HL*1**20*1',
  'PRV*BI*PXC*282N00000X',
  'NM1*85*2*JONES HOSPITAL*****XX*1234567893',
  'N3*225 MAIN STREET',
  'N4*CENTERVILLE*PA*17111',
  'REF*EI*567891234',
  'HL*2*1*22*0',
  'SBR*P*18*******MA',
  'NM1*IL*1*DOE*JON****MI*1EG4TE5MK73',
  'N4*CENTERVILLE*PA*17112',
  'DMG*D8*19451111*M',
  'NM1*PR*2*MEDICARE PART A*****PI*12345',
  'CLM*INST77*1250.00***13:A:1**A*Y*Y',
  'DTP*434*RD8*20250911-20250912',
  'DTP*435*DT*202509110800',
  'CL1*1*7*01',
  'REF*G1*PAINST',
  'HI*ABK:K3580',
  'HI*ABJ:R1031',
  'HI*APR:R1030',
  'HI*ABF:E119*ABF:I10',
  'HI*BBR:0DTJ4ZZ:D8:20250911',
  'HI*BH:11:D8:20250910',
  'HI*BE:80:::2',
  'HI*BG:01',
  'NM1*71*1*JONES*JOHN****XX*1122334455',
  'PRV*AT*PXC*207R00000X',
  'NM1*77*2*JONES OUTPATIENT*****XX*1999999976',
  'N3*1 CLINIC WAY',
  'N4*CENTERVILLE*PA*17113',
  'LX*1',
  'SV2*0450**1000.00*UN*1',
  'DTP*472*D8*20250911',
  'LX*2',
  'SV2*0300*HC:80053:91*250.00*UN*3',
];

const line = (o: Partial<Claim['lines'][number]>): Claim['lines'][number] => ({
  line_number: 1,
  segment: 0,
  revenue_code: null,
  code: null,
  code_qualifier: null,
  modifiers: [],
  charged: null,
  unit_basis: null,
  units: null,
  place_of_service: null,
  diagnosis_pointers: [],
  date_from: null,
  date_to: null,
  control_number: null,
  ndc: null,
  ndc_segment: null,
  prior_authorization: null,
  rendering_npi: null,
  ...o,
});

describe('read837: a professional claim', () => {
  const b = PROFESSIONAL;
  const file = read837(x837(b));

  it('counts the claims and their kind before reading them', () => {
    expect(file.claims).toBe(1);
    expect(file.kinds).toEqual({ professional: 1, institutional: 0 });
    expect(file.transactions).toEqual([{ index: 0, control_number: '0001', version: '005010X222A1', kind: 'professional', claims: 1, segment: 3 }]);
    expect(file.findings).toEqual([]);
  });

  it('reads every field: billing provider of 2000A, subscriber and payer of 2000B, the 2000C patient, 2310B/C, two lines with pointers, modifiers, NDC and line control number', () => {
    const [c, ...more] = [...file.each()];
    expect(more).toEqual([]);
    expect(c).toEqual<Claim>({
      kind: 'professional',
      transaction: { index: 0, control_number: '0001', version: '005010X222A1' },
      segment: at(b, 'CLM'),
      patient_control_number: 'PCN1001',
      total_charge: '155.00',
      facility_code: '11',
      facility_qualifier: 'B',
      frequency: '7',
      place_of_service: '11',
      type_of_bill: null,
      statement_from: null,
      statement_to: null,
      original_reference: 'ICN998877',
      prior_authorization: 'AUTH555',
      // The pay-to address (NM1*87, GA) is not the billing provider's.
      billing_provider: { name: 'RIVERSIDE CLINIC', npi: '1912301953', tin: '587654321', taxonomy: '207Q00000X', state: 'FL', zip: '331110000', segment: at(b, 'NM1*85') },
      rendering_provider: { name: 'WELBY', npi: '1234567893', tin: null, taxonomy: '207X00000X', state: null, zip: null, segment: at(b, 'NM1*82') },
      service_facility: { name: 'RIVERSIDE ASC', npi: '1581234567', tin: null, taxonomy: null, state: 'FL', zip: '32801', segment: at(b, 'NM1*77') },
      // The 2330A/2330B loops of the secondary payer (MCD777, STATE MEDICAID, TAMPA) overwrite nothing.
      subscriber: { payer_responsibility: 'P', filing_indicator: 'CI', member_id: 'JS001', last_name: 'SMITH', first_name: 'JANE', state: 'FL', zip: '33413' },
      patient: { last_name: 'SMITH', first_name: 'TED', birth_date: '2010-05-01', state: 'FL', zip: '33414' },
      payer: { name: 'KEY INSURANCE COMPANY', id: '999996666' },
      other_payers: 1,
      diagnoses: [
        { code: 'M47812', qualifier: 'ABK', principal: true, pointer: 1, segment: at(b, 'HI') },
        { code: 'E119', qualifier: 'ABF', principal: false, pointer: 2, segment: at(b, 'HI') },
        { code: 'I10', qualifier: 'ABF', principal: false, pointer: 3, segment: at(b, 'HI') },
      ],
      lines: [
        // SV105 empty: the line takes the claim's place of service. The 2430 SVD/CAS/DTP*573 after it are skipped.
        line({ line_number: 1, segment: at(b, 'SV1'), code: '99214', code_qualifier: 'HC', modifiers: ['25'], charged: '100.00', unit_basis: 'UN', units: 1, place_of_service: '11', diagnosis_pointers: [1, 3], date_from: '2025-10-03', date_to: '2025-10-03', control_number: 'LINEA1' }),
        line({
          line_number: 2,
          segment: at(b, 'SV1*HC:J1100'),
          code: 'J1100',
          code_qualifier: 'HC',
          modifiers: ['JW', '59', 'XU', '76'],
          charged: '55.00',
          unit_basis: 'UN',
          units: 2.5,
          place_of_service: '22',
          diagnosis_pointers: [2],
          date_from: '2025-10-03',
          date_to: '2025-10-05',
          ndc: '00009003402',
          ndc_segment: at(b, 'LIN'),
          prior_authorization: 'LINEAUTH',
          rendering_npi: '1999996666',
        }),
      ],
      issues: [],
    });
  });

  it('takes the patient from the subscriber when no 2000C follows (SBR02 18: self)', () => {
    const body = [...b.slice(0, at(b, 'HL*3') - 4), ...b.slice(at(b, 'CLM') - 4)].map((s) => s.replace('SBR*P**GRP01', 'SBR*P*18*GRP01'));
    const [c] = claimsOf(x837(body));
    expect(c!.patient).toEqual({ last_name: 'SMITH', first_name: 'JANE', birth_date: '1970-01-01', state: 'FL', zip: '33413' });
    expect(c!.issues).toEqual([]);
  });
});

describe('read837: an institutional claim', () => {
  const b = INSTITUTIONAL;

  it('reads type of bill 131, statement dates, the attending provider, the 2310E facility, diagnoses only (no value, occurrence, condition or procedure codes) and a revenue-code line without HCPCS', () => {
    const file = read837(x837(b, { version: '005010X223A2' }));
    expect(file.kinds).toEqual({ professional: 0, institutional: 1 });
    const [c] = [...file.each()];
    expect(c).toEqual<Claim>({
      kind: 'institutional',
      transaction: { index: 0, control_number: '0001', version: '005010X223A2' },
      segment: at(b, 'CLM'),
      patient_control_number: 'INST77',
      total_charge: '1250.00',
      facility_code: '13',
      facility_qualifier: 'A',
      frequency: '1',
      place_of_service: null,
      type_of_bill: '131',
      statement_from: '2025-09-11',
      statement_to: '2025-09-12',
      original_reference: null,
      prior_authorization: 'PAINST',
      billing_provider: { name: 'JONES HOSPITAL', npi: '1234567893', tin: '567891234', taxonomy: '282N00000X', state: 'PA', zip: '17111', segment: at(b, 'NM1*85') },
      rendering_provider: { name: 'JONES', npi: '1122334455', tin: null, taxonomy: '207R00000X', state: null, zip: null, segment: at(b, 'NM1*71') },
      service_facility: { name: 'JONES OUTPATIENT', npi: '1999999976', tin: null, taxonomy: null, state: 'PA', zip: '17113', segment: at(b, 'NM1*77') },
      subscriber: { payer_responsibility: 'P', filing_indicator: 'MA', member_id: '1EG4TE5MK73', last_name: 'DOE', first_name: 'JON', state: 'PA', zip: '17112' },
      patient: { last_name: 'DOE', first_name: 'JON', birth_date: '1945-11-11', state: 'PA', zip: '17112' },
      payer: { name: 'MEDICARE PART A', id: '12345' },
      other_payers: 0,
      diagnoses: [
        { code: 'K3580', qualifier: 'ABK', principal: true, pointer: 1, segment: at(b, 'HI*ABK') },
        { code: 'R1031', qualifier: 'ABJ', principal: false, pointer: null, segment: at(b, 'HI*ABJ') },
        { code: 'R1030', qualifier: 'APR', principal: false, pointer: null, segment: at(b, 'HI*APR') },
        { code: 'E119', qualifier: 'ABF', principal: false, pointer: 2, segment: at(b, 'HI*ABF') },
        { code: 'I10', qualifier: 'ABF', principal: false, pointer: 3, segment: at(b, 'HI*ABF') },
      ],
      lines: [
        line({ line_number: 1, segment: at(b, 'SV2*0450'), revenue_code: '0450', charged: '1000.00', unit_basis: 'UN', units: 1, date_from: '2025-09-11', date_to: '2025-09-11' }),
        line({ line_number: 2, segment: at(b, 'SV2*0300'), revenue_code: '0300', code: '80053', code_qualifier: 'HC', modifiers: ['91'], charged: '250.00', unit_basis: 'UN', units: 3 }),
      ],
      issues: [],
    });
  });

  it('decides the kind by SV2 when neither GS08 nor ST03 names the TR3 (a file without ISA or GS)', () => {
    const text = ['ST*837*0001', ...b, `SE*${b.length + 2}*0001`].join('~') + '~';
    const file = read837(text);
    expect(file.transactions[0]!.kind).toBeNull();
    expect(file.kinds).toEqual({ professional: 0, institutional: 1 });
    const [c] = [...file.each()];
    expect(c).toMatchObject({ kind: 'institutional', type_of_bill: '131', place_of_service: null, rendering_provider: { npi: '1122334455' } });
    const prof = read837(['ST*837*0001', ...PROFESSIONAL, `SE*${PROFESSIONAL.length + 2}*0001`].join('~'));
    expect([...prof.each()][0]).toMatchObject({ kind: 'professional', place_of_service: '11', type_of_bill: null });
  });
});

describe('read837: issues on the claim, never an exception', () => {
  const b = [
    ...HEADER,
    'HL*1**20*1',
    'NM1*87*2',
    'HL*2*1*22*0',
    'NM1*IL*1*SMITH*JANE****MI*JS001',
    'DMG*D8*19701399*F',
    'SV1*HC:99212*50.00*UN*1',
    'CLM*PCNA****11:B:1*Y*A*Y*Y',
    'HI*ABK:J069',
    'LX*1',
    'SV1*HC:99213**UN*Q7',
    'DTP*472*D8*20250230',
    'CLM*PCNB*10.00***11:B:1*Y*A*Y*Y',
    'HL*3*1*22*0',
    'SV2*0450**20.00*UN*1',
  ];
  const file = read837(x837(b));
  const [a, c, ...more] = [...file.each()];

  it('reports CLM02, SV102 and an impossible date missing or unreadable, and leaves the value null', () => {
    expect(more).toEqual([]);
    expect(a!.total_charge).toBeNull();
    expect(a!.lines[0]).toMatchObject({ charged: null, units: null, date_from: null, date_to: null, code: '99213' });
    expect(a!.patient.birth_date).toBeNull();
    const issues = a!.issues.map(({ code, segment_id, segment, loop }) => ({ code, segment_id, segment, loop }));
    expect(issues).toEqual<Omit<ReadIssue, 'message'>[]>([
      // The SV1 before any CLM is attached to the next claim.
      { code: 'unexpected_segment', segment_id: 'SV1', segment: at(b, 'SV1*HC:99212'), loop: '2400' },
      { code: 'invalid_value', segment_id: 'DMG', segment: at(b, 'DMG'), loop: '2010BA' },
      { code: 'missing_segment', segment_id: 'NM1*85', segment: at(b, 'HL*1'), loop: '2010AA' },
      { code: 'missing_segment', segment_id: 'SBR', segment: at(b, 'HL*2'), loop: '2000B' },
      { code: 'missing_segment', segment_id: 'NM1*PR', segment: at(b, 'HL*2'), loop: '2010BB' },
      { code: 'missing_element', segment_id: 'CLM', segment: at(b, 'CLM*PCNA'), loop: '2300' },
      { code: 'missing_element', segment_id: 'SV1', segment: at(b, 'SV1*HC:99213'), loop: '2400' },
      { code: 'invalid_value', segment_id: 'SV1', segment: at(b, 'SV1*HC:99213'), loop: '2400' },
      { code: 'invalid_value', segment_id: 'DTP', segment: at(b, 'DTP*472'), loop: '2400' },
    ]);
    expect(a!.issues.find((i) => i.segment_id === 'CLM')!.message).toBe('CLM02 (total claim charge amount) is missing');
    expect(a!.issues.find((i) => i.segment_id === 'DTP')!.message).toMatch(/^DTP03 \(service date\) is not a calendar date/);
  });

  it('reports a claim without a service line (loop 2400) or a principal diagnosis at its CLM', () => {
    expect(c!.patient_control_number).toBe('PCNB');
    expect(c!.lines).toEqual([]);
    expect(c!.issues.slice(-2)).toEqual([
      { code: 'missing_segment', segment_id: 'LX', segment: at(b, 'CLM*PCNB'), loop: '2400', message: 'the claim has no service line (loop 2400: LX with SV1 or SV2)' },
      { code: 'missing_segment', segment_id: 'HI', segment: at(b, 'CLM*PCNB'), loop: '2300', message: 'the claim has no principal diagnosis (HI with qualifier ABK or BK)' },
    ]);
  });

  it('keeps a service line after the last claim as a file-level issue', () => {
    expect(file.issues).toEqual([{ code: 'unexpected_segment', segment_id: 'SV2', segment: at(b, 'SV2'), loop: '2400', message: expect.stringContaining('outside any claim') }]);
  });

  it('never echoes the file in a message (an 837 carries PHI)', () => {
    const messages = [...a!.issues, ...c!.issues, ...file.issues].map((i) => i.message).join('\n');
    for (const value of ['PCNA', 'SMITH', 'JS001', '19701399', '20250230', 'Q7', '99213', 'J069']) expect(messages).not.toContain(value);
  });

  it('reads the file again on each pass, its file-level issues not doubled', () => {
    expect([...file.each()]).toEqual([a, c]);
    expect(file.issues).toHaveLength(1);
  });
});

describe('read837: the hierarchy and the file', () => {
  it('finds a subscriber level under its billing provider by HL02, not by what came last', () => {
    const b = [
      ...HEADER,
      'HL*1**20*1',
      'NM1*85*2*FIRST CLINIC*****XX*1111111112',
      'HL*2**20*1',
      'NM1*85*2*SECOND CLINIC*****XX*2222222224',
      'HL*3*1*22*0',
      'SBR*P*18*******CI',
      'NM1*IL*1*DOE*JOHN****MI*M1',
      'NM1*PR*2*PAYER*****PI*P1',
      'CLM*C1*10.00***11:B:1*Y*A*Y*Y',
      'HI*ABK:J069',
      'LX*1',
      'SV1*HC:99213*10.00*UN*1***1',
      'HL*4*9*22*0',
      'SBR*P*18*******CI',
      'NM1*IL*1*DOE*JANE****MI*M2',
      'NM1*PR*2*PAYER*****PI*P1',
      'CLM*C2*10.00***11:B:1*Y*A*Y*Y',
      'HI*ABK:J069',
      'LX*1',
      'SV1*HC:99213*10.00*UN*1***1',
    ];
    const [c1, c2] = claimsOf(x837(b));
    expect(c1!.billing_provider!.name).toBe('FIRST CLINIC');
    expect(c1!.issues).toEqual([]);
    // HL*4 names a parent (9) that does not exist: read under the preceding billing provider, and said.
    expect(c2!.billing_provider!.name).toBe('SECOND CLINIC');
    expect(c2!.issues).toEqual([expect.objectContaining({ code: 'invalid_value', segment_id: 'HL', segment: at(b, 'HL*4'), loop: '2000B' })]);
  });

  it('follows another component separator than ISA16 declares, reported once', () => {
    const b = PROFESSIONAL.map((s) => (s.startsWith('CLM') || s.startsWith('SV1') || s.startsWith('HI') ? s.replaceAll(':', '>') : s));
    const file = read837(x837(b));
    const [c] = [...file.each()];
    expect(c).toMatchObject({ facility_code: '11', frequency: '7', diagnoses: [{ code: 'M47812' }, { code: 'E119' }, { code: 'I10' }] });
    expect(c!.lines.map((l) => [l.code, l.modifiers, l.diagnosis_pointers])).toEqual([
      ['99214', ['25'], [1, 3]],
      ['J1100', ['JW', '59', 'XU', '76'], [2]],
    ]);
    expect(c!.issues).toEqual([]);
    expect(file.issues).toEqual([expect.objectContaining({ code: 'invalid_value', segment_id: 'CLM', segment: at(b, 'CLM') })]);
  });

  it('reads `|` elements, `>` components and one segment a line', () => {
    const [c] = claimsOf(x837(PROFESSIONAL, { el: '|', comp: '>', term: '\r\n' }));
    expect(c).toMatchObject({ patient_control_number: 'PCN1001', frequency: '7', lines: [{ code: '99214', diagnosis_pointers: [1, 3] }, { modifiers: ['JW', '59', 'XU', '76'] }], issues: [] });
  });

  it('reads a diagnosis qualifier and its code sent in two elements as a pair, and says so', () => {
    const b = PROFESSIONAL.map((s) => (s.startsWith('HI') ? 'HI*ABK*M47812*ABF*E119*ABF:I10' : s));
    const [c] = claimsOf(x837(b));
    expect(c!.diagnoses.map((d) => [d.qualifier, d.code, d.pointer])).toEqual([
      ['ABK', 'M47812', 1],
      ['ABF', 'E119', 2],
      ['ABF', 'I10', 3],
    ]);
    expect(c!.issues).toEqual([expect.objectContaining({ code: 'invalid_value', segment_id: 'HI', segment: at(b, 'HI') })]);
  });

  it('numbers the transactions of the file and skips a 999 beside the 837s as a finding', () => {
    const one = x837(PROFESSIONAL).split('~\n');
    const st = one.findIndex((s) => s.startsWith('ST'));
    const se = one.findIndex((s) => s.startsWith('SE'));
    const ack = ['ST*999*0002*005010X231A1', 'AK1*HC*1*005010X222A1', 'AK9*A*1*1*1', 'SE*4*0002'];
    const tx = one.slice(st, se + 1);
    const text = [...one.slice(0, st), ...tx, ...ack, ...tx.map((s) => s.replace('0001', '0003')), 'GE*3*1', 'IEA*1*000000001'].join('~\n') + '~\n';
    const file = read837(text);
    expect(file.claims).toBe(2);
    expect(file.transactions.map((t) => [t.index, t.control_number])).toEqual([
      [0, '0001'],
      [2, '0003'],
    ]);
    expect(file.findings).toEqual([expect.objectContaining({ code: 'other_transaction', segment_index: st + 1 + tx.length, message: expect.stringContaining('999 implementation acknowledgment') })]);
    expect([...file.each()].map((c) => c.transaction)).toEqual([
      { index: 0, control_number: '0001', version: '005010X222A1' },
      { index: 2, control_number: '0003', version: '005010X222A1' },
    ]);
  });

  it('yields claims one at a time: the first before the file is read to its end', () => {
    const many = [...PROFESSIONAL];
    for (let i = 0; i < 50; i++) many.push(...PROFESSIONAL.slice(at(PROFESSIONAL, 'CLM') - 4).map((s) => s.replace('PCN1001', `PCN${i}`)));
    const file = read837(x837(many));
    expect(file.claims).toBe(51);
    const it = file.each();
    expect(it.next().value).toMatchObject({ patient_control_number: 'PCN1001' });
    expect(it.next().value).toMatchObject({ patient_control_number: 'PCN0' });
  });
});

describe('read837: what it refuses', () => {
  it('refuses an 835 remittance as x12_not_837, naming what it is at its ST', () => {
    const issues = x12Issues(() => read837(remit835(['CLP*PCN1*1*100*80**12*ICN1'])));
    expect(issues).toEqual([{ loc: ['body', 'segment', 3, 'ST'], msg: expect.stringContaining('an 835 remittance advice, not an 837 claim'), type: 'x12_not_837', ctx: { transaction_sets: ['835'] } }]);
  });

  it('refuses a 4010 837 (004010X098A1) as x12_version at its ST', () => {
    const issues = x12Issues(() => read837(x837(PROFESSIONAL, { version: '004010X098A1' })));
    expect(issues).toEqual([{ loc: ['body', 'segment', 3, 'ST'], msg: expect.stringContaining('4010 professional (004010X098A1)'), type: 'x12_version', ctx: { version: '004010X098A1' } }]);
    expect(x12Issues(() => read837(x837(INSTITUTIONAL, { version: '004010X096A1' })))[0]!.msg).toContain('institutional (004010X096A1)');
  });

  it('lets the envelope reader refuse what is not X12, without echoing it', () => {
    const issues = x12Issues(() => read837('SMITH JANE 19700101 not an edi file'));
    expect(issues[0]!.type).toBe('x12_unreadable');
    expect(issues[0]!.msg).not.toContain('SMITH');
  });
});
