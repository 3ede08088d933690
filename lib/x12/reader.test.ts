import { describe, expect, it } from 'vitest';
import { readEnvelope, X12Error } from './reader.js';

const ISA = 'ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *260105*1200*^*00501*000000001*0*T*:';

/** An interchange of one group of the given transactions (each its segments between ST and SE). */
function file(sets: { id: string; body: string[] }[], o: { sep?: string; version?: string } = {}): string {
  const txs = sets.flatMap((s, i) => {
    const inner = [`ST*${s.id}*${String(i + 1).padStart(4, '0')}`, ...s.body];
    return [...inner, `SE*${inner.length + 1}*${String(i + 1).padStart(4, '0')}`];
  });
  return [ISA, `GS*HC*S*R*20260105*1200*1*X*${o.version ?? '005010X222A1'}`, ...txs, `GE*${sets.length}*1`, 'IEA*1*000000001'].join(o.sep ?? '~\n') + '~\n';
}

describe('readEnvelope', () => {
  it('reads any transaction set, its version from GS08, its date from GS04, and counts the ids asked for', () => {
    const env = readEnvelope(file([{ id: '837', body: ['BHT*0019*00*1', 'CLM*A*100', 'SV1*HC:99213*100', 'CLM*B*50'] }]), { count: ['CLM', 'SV1'] });
    expect(env.interchanges).toBe(1);
    expect(env.segments).toBe(10);
    const [t] = env.transactions;
    expect(t).toMatchObject({ set_id: '837', control_number: '0001', version: '005010X222A1', group_date: '20260105', counts: { CLM: 2, SV1: 1 } });
    expect(t!.st.index).toBe(3);
    expect(t!.segments.map((s) => s.id)).toEqual(['ST', 'BHT', 'CLM', 'SV1', 'CLM', 'SE']);
    expect(t!.segments[2]).toEqual({ index: 5, id: 'CLM', el: ['A', '100'] });
    expect(env.findings).toEqual([]);
  });

  it('takes its separators from the ISA, and reads one segment a line', () => {
    const text = file([{ id: '835', body: ['CLP|A|1|100'] }]).replace(/\*/g, '|').replace(/\|\^\|00501/, '|^|00501');
    expect(readEnvelope(text).separators).toEqual({ element: '|', component: ':', repetition: '^', segment: '~' });
    const lines = file([{ id: '835', body: ['CLP*A*1*100'] }], { sep: '\n' }).replace(/~\n$/, '\n');
    const env = readEnvelope(lines);
    expect(env.separators.segment).toBe('\n');
    expect(env.transactions[0]!.segments).toHaveLength(3);
  });

  it('reports counts that disagree as findings, and an ST no SE closes as an error naming where it opened', () => {
    const wrong = file([{ id: '835', body: ['CLP*A'] }]).replace('SE*3*0001', 'SE*9*0001').replace('GE*1*1', 'GE*2*1');
    expect(readEnvelope(wrong).findings.map((f) => f.code)).toEqual(['segment_count_mismatch', 'transaction_count_mismatch']);
    const cut = file([{ id: '835', body: ['CLP*A'] }]).replace(/SE\*3\*0001~\n/, '');
    try {
      readEnvelope(cut);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(X12Error);
      expect((e as X12Error).issues[0]).toMatchObject({ loc: ['body', 'segment', 3, 'ST'], type: 'x12_truncated' });
    }
  });

  it('never throws anything but X12Error on mutated input, and never echoes it (bounded: 500 mutations)', () => {
    const base = file([{ id: '835', body: ['BPR*I*100*C*ACH', 'CLP*SECRET123*1*100*100', 'SVC*HC:99213*100*100'] }]);
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 500; i++) {
      const chars = [...base];
      for (let k = 0; k < 1 + rand(6); k++) {
        const at = rand(chars.length);
        const op = rand(3);
        if (op === 0) chars.splice(at, 1);
        else if (op === 1) chars.splice(at, 0, '~*:\n^'[rand(5)]!);
        else chars[at] = String.fromCharCode(32 + rand(95));
      }
      try {
        readEnvelope(chars.join(''));
      } catch (e) {
        expect(e).toBeInstanceOf(X12Error);
        expect((e as Error).message).not.toContain('SECRET123');
      }
    }
  });
});
