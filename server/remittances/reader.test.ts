import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../warehouse/errors.js';
import { readX12 } from './x12.js';

/** A small hand-written 5010 835 (one claim, one line) with the separators given. */
function remit(o: { el?: string; comp?: string; rep?: string; term?: string; between?: string; version?: string; se?: string; tail?: boolean } = {}): string {
  const e = o.el ?? '*';
  const c = o.comp ?? ':';
  const t = o.term ?? '~';
  const n = o.between ?? '';
  const isa = ['ISA', '00', '          ', '00', '          ', 'ZZ', 'PAYER          ', 'ZZ', 'PROVIDER       ', '260105', '1200', o.rep ?? '^', '00501', '000000001', '0', 'T', c].join(e);
  const body = [
    ['GS', 'HP', 'PAYER', 'PROVIDER', '20260105', '1200', '1', 'X', o.version ?? '005010X221A1'],
    ['ST', '835', '0001'],
    ['BPR', 'I', '80', 'C', 'ACH'],
    ['TRN', '1', 'EFT1', '1234567890'],
    ['N1', 'PR', 'SOME PAYER'],
    ['CLP', 'PCN1', '1', '100', '80', '', 'CI', 'ICN1'],
    ['SVC', `HC${c}99213${c}25`, '100', '80', '', '1'],
    ['CAS', 'CO', '45', '20'],
    ['SE', o.se ?? '8', '0001'],
    ...(o.tail === false ? [] : [['GE', '1', '1'], ['IEA', '1', '000000001']]),
  ].map((s) => s.join(e));
  return [isa, ...body].join(`${t}${n}`) + t;
}

function issuesOf(f: () => unknown): { loc: (string | number)[]; msg: string; type: string; input?: unknown }[] {
  try {
    f();
  } catch (e) {
    if (e instanceof ValidationError) return e.issues as never;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('readX12', () => {
  it('takes the separators from the ISA header: element, component (ISA16), repetition (ISA11), terminator', () => {
    const f = readX12(remit());
    expect(f.separators).toEqual({ element: '*', component: ':', repetition: '^', segment: '~' });
    expect(f.transactions).toHaveLength(1);
    expect(f.transactions[0]!.segments.map((s) => s.id)).toEqual(['ST', 'BPR', 'TRN', 'N1', 'CLP', 'SVC', 'CAS', 'SE']);
    expect(f.transactions[0]!.version).toBe('005010X221A1');
    expect(f.findings).toEqual([]);
  });

  it('reads `+` elements and `>` components, with a U repetition separator read as none', () => {
    const f = readX12(remit({ el: '+', comp: '>', rep: 'U' }));
    expect(f.separators).toEqual({ element: '+', component: '>', repetition: null, segment: '~' });
    const svc = f.transactions[0]!.segments.find((s) => s.id === 'SVC')!;
    expect(svc.el[0]).toBe('HC>99213>25');
  });

  it('reads a byte-order mark, prose before the ISA and CRLF between segments', () => {
    const text = '\uFEFFBusiness scenario: a payment sent with its detail.\r\n\r\n' + remit({ between: '\r\n' });
    const f = readX12(Buffer.from(text, 'utf8'));
    expect(f.transactions[0]!.segments).toHaveLength(8);
    // Positions count from the ISA (1), so GS is 2 and ST is 3.
    expect(f.transactions[0]!.segments[0]!.index).toBe(3);
  });

  it('reads newline-terminated segments (the byte after ISA16 is a newline)', () => {
    const f = readX12(remit({ el: '+', comp: '>', term: '\n' }));
    expect(f.separators.segment).toBe('\n');
    expect(f.transactions[0]!.segments.map((s) => s.id)).toContain('CAS');
  });

  it('reads a one-line file without ISA/GS with the usual separators', () => {
    const text = 'ST*835*1~BPR*I*80*C*CHK~CLP*P1*1*100*80**CI*X~SVC*HC:99213*100*80**1~CAS*CO*45*20~SE*6*1~';
    const f = readX12(text);
    expect(f.separators).toEqual({ element: '*', component: ':', repetition: null, segment: '~' });
    expect(f.interchanges).toBe(1);
    expect(f.transactions[0]!.version).toBeNull();
    expect(f.findings).toEqual([]);
  });

  it('reads several interchanges in one file', () => {
    const f = readX12(remit({ between: '\n' }) + '\n' + remit({ between: '\n' }));
    expect(f.interchanges).toBe(2);
    expect(f.transactions.map((t) => t.interchange)).toEqual([0, 1]);
  });

  it('reports an SE count that disagrees as a finding, not an error', () => {
    const f = readX12(remit({ se: '9' }));
    expect(f.findings).toEqual([expect.objectContaining({ code: 'segment_count_mismatch', segment_index: 10, segment_id: 'SE' })]);
    expect(f.findings[0]!.message).toContain('the transaction has 8');
  });

  it('refuses a file cut short, naming the missing SE, GE and IEA by segment position, without echoing content', () => {
    const full = remit();
    const cut = full.slice(0, full.indexOf('SE*'));
    const issues = issuesOf(() => readX12(cut));
    expect(issues.map((i) => i.type)).toEqual(['x12_truncated', 'x12_truncated', 'x12_truncated']);
    expect(issues.map((i) => i.loc)).toEqual([
      ['body', 'segment', 3, 'ST'],
      ['body', 'segment', 2, 'GS'],
      ['body', 'segment', 1, 'ISA'],
    ]);
    expect(issues[0]!.msg).toContain('no SE closes the ST of segment 3');
    expect(issues.every((i) => i.input === undefined && !i.msg.includes('SOME PAYER') && !i.msg.includes('PCN1'))).toBe(true);
  });

  it('refuses a file that ends after SE without GE and IEA', () => {
    const issues = issuesOf(() => readX12(remit({ tail: false })));
    expect(issues.map((i) => i.msg)).toEqual([expect.stringContaining('no GE closes the GS of segment 2'), expect.stringContaining('no IEA closes the ISA of segment 1')]);
  });

  it('refuses a 4010 835 (004010X091A1) with a message naming the version', () => {
    const issues = issuesOf(() => readX12(remit({ version: '004010X091A1' })));
    expect(issues).toEqual([expect.objectContaining({ type: 'x12_version', loc: ['body', 'segment', 3, 'ST'] })]);
    expect(issues[0]!.msg).toMatch(/4010 835 \(004010X091A1\).*005010X221A1/);
  });

  it('reads a 5010 transaction inside an ISA 00401 envelope (GS08 5010)', () => {
    const f = readX12(remit({ version: '5010' }).replace('*00501*', '*00401*'));
    expect(f.transactions[0]!.version).toBe('5010');
  });

  it.each([
    ['837', '005010X222A1', /an 837 health care claim \(professional\)/],
    ['277', '005010X212', /a 277 claim status response/],
    ['997', '005010X230', /a 997 functional acknowledgment/],
  ])('names an %s for what it is (422 x12_not_835)', (setId, version, what) => {
    const text = remit({ version }).replace('ST*835*0001', `ST*${setId}*0001`);
    const issues = issuesOf(() => readX12(text));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.type).toBe('x12_not_835');
    expect(issues[0]!.msg).toMatch(what);
  });

  it.each([
    ['999', '005010X231A1'],
    ['277', '005010X214'],
  ])('keeps a %s %s as an acknowledgment to explain', (setId, version) => {
    const f = readX12(remit({ version }).replace('ST*835*0001', `ST*${setId}*0001`));
    expect(f.transactions).toEqual([]);
    expect(f.acknowledgments.map((t) => [t.set_id, t.version])).toEqual([[setId, version]]);
    expect(f.findings.map((x) => x.code)).not.toContain('other_transaction');
  });

  it('refuses an empty or binary body as not X12', () => {
    expect(issuesOf(() => readX12('hello, world'))[0]!.type).toBe('x12_unreadable');
    expect(issuesOf(() => readX12(Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe])))[0]!.msg).toContain('binary');
  });
});
