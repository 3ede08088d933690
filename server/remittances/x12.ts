import { ValidationError, type Issue } from '../../warehouse/errors.js';

/**
 * A lenient X12 reader for 835 remittances: separators from the ISA header (element = ISA's 4th
 * byte, repetition = ISA11 unless `U`, component = ISA16, segment terminator = the byte after
 * ISA16, a newline terminator meaning "one segment a line"), or `*`, `:`, `~` for a file without
 * ISA (payers' companion-guide samples send ST..SE alone). A byte-order mark, prose before the ISA
 * (stupidedi's TR3 business scenarios), CRLF, indentation and several interchanges in one file
 * are read. What the file is comes from ST01 with GS08/ST03 (ISA12 says 00401 over many 5010
 * files: OopFactory's 5010 Example1). Errors name segment positions and ids, never contents: an
 * 835 carries PHI.
 */

export interface Separators {
  element: string;
  component: string;
  /** null when ISA11 is `U` (4010 style) or the file has no ISA. */
  repetition: string | null;
  /** `\n` when segments end at line ends. */
  segment: string;
}

export interface Segment {
  /** 1-based position of the segment in the file (ISA is 1). */
  index: number;
  id: string;
  /** Elements after the id: `el[0]` is XX01. */
  el: string[];
}

/** A count in SE, GE or IEA that disagrees, or a segment where none belongs: reported, never fatal. */
export interface ReaderFinding {
  code: 'segment_count_mismatch' | 'transaction_count_mismatch' | 'group_count_mismatch' | 'segment_outside_transaction' | 'other_transaction';
  message: string;
  interchange: number | null;
  transaction: number | null;
  segment_index: number;
  segment_id: string;
}

export interface Transaction {
  /** 0-based interchange of the file (0 for a file without ISA). */
  interchange: number;
  /** ST01: 835, 837, 999, 277 ... */
  set_id: string;
  control_number: string;
  /** ST03, else GS08 (null when neither says). */
  version: string | null;
  /** GS04 (CCYYMMDD) of the enclosing group, when there is one. */
  group_date: string | null;
  /** Its segments, ST .. SE inclusive, read from the file's text again on each call: a large file is never held as segments. */
  each(): Generator<Segment>;
  /** The same as an array (acknowledgments, tests). */
  readonly segments: Segment[];
}

export interface X12File {
  separators: Separators;
  interchanges: number;
  /** CLP segments in the 835 transactions: the claims the explanation will have (progress). */
  claims: number;
  /** Every segment of the file: the work an explanation does (RCM_REMIT_MAX_SEGMENTS, the concurrency budget). */
  segments: number;
  /** The 835 transactions, in file order. */
  transactions: Transaction[];
  /** The 999 and 277CA (005010X214) transactions, in file order: explained beside the 835s. */
  acknowledgments: Transaction[];
  findings: ReaderFinding[];
}

const DEFAULT: Separators = { element: '*', component: ':', repetition: null, segment: '~' };

/** The separators of a file, and where its first segment starts. */
function detectSeparators(text: string): { separators: Separators; start: number; hasIsa: boolean } {
  const isa = /(?:^|[^A-Za-z0-9])ISA([^A-Za-z0-9\s])/.exec(text);
  if (isa) {
    const start = isa.index + (isa[0].length - 4);
    const element = isa[1]!;
    // ISA has 16 elements: the component separator follows the 16th element separator.
    const fields: number[] = [];
    for (let i = start; i < text.length && fields.length < 16; i++) if (text[i] === element) fields.push(i);
    const at = fields.length === 16 ? fields[15]! + 1 : -1;
    if (at < 0 || at >= text.length) throw unreadable('an ISA header without its 16 elements', 1, 'ISA');
    const component = text[at]!;
    const term = text[at + 1] ?? '~';
    const isa11 = text.slice(fields[10]! + 1, fields[11]!);
    const repetition = isa11.length === 1 && isa11 !== 'U' && !/[A-Za-z0-9]/.test(isa11) ? isa11 : null;
    const segment = term === '\r' || term === '\n' ? '\n' : term;
    return { separators: { element, component, repetition, segment }, start, hasIsa: true };
  }
  const st = /(?:^|[^A-Za-z0-9])(GS|ST)([^A-Za-z0-9\s])/.exec(text);
  if (!st) throw new ValidationError([{ loc: ['body'], msg: 'not an X12 file: no ISA, GS or ST segment was found', type: 'x12_unreadable' }]);
  const start = st.index + (st[0].length - 3);
  const element = st[2]!;
  const segment = text.includes('~') ? '~' : '\n';
  return { separators: { ...DEFAULT, element, segment }, start, hasIsa: false };
}

const unreadable = (msg: string, index: number, id: string) => new ValidationError([{ loc: ['body', 'segment', index, id], msg, type: 'x12_unreadable' }]);

/** A segment's text as the file has it (whitespace and NULs around it dropped), its 1-based position and where it starts and ends in the file. */
interface RawSegment {
  text: string;
  index: number;
  start: number;
  next: number;
}

const NEWLINE = /\r\n|\n|\r/g;

/** The non-empty segments of `text` between `from` and `to`, numbered from `first`. */
function* rawSegments(text: string, s: Separators, from: number, to: number, first: number): Generator<RawSegment> {
  let index = first;
  let pos = from;
  const newline = new RegExp(NEWLINE.source, 'g');
  while (pos < to) {
    let stop: number;
    let next: number;
    if (s.segment === '\n') {
      newline.lastIndex = pos;
      const m = newline.exec(text);
      stop = m && m.index < to ? m.index : to;
      next = m && m.index < to ? m.index + m[0].length : to;
    } else {
      const i = text.indexOf(s.segment, pos);
      stop = i < 0 || i >= to ? to : i;
      next = stop === to ? to : stop + 1;
    }
    const t = text.slice(pos, stop).replace(/^[\s\u0000]+|[\s\u0000]+$/g, '');
    if (t !== '') yield { text: t, index: index++, start: pos, next };
    pos = next;
  }
}

/** A segment with its elements (id upper-cased). */
function segmentOf(r: RawSegment, s: Separators): Segment {
  const el = r.text.split(s.element);
  const id = el.shift()!;
  return { index: r.index, id: id.trim().toUpperCase(), el };
}

/** The segments the first pass reads whole: the envelope. */
const ENVELOPE: ReadonlySet<string> = new Set(['ISA', 'GS', 'ST', 'SE', 'GE', 'IEA']);

/** A segment's id alone, without splitting its elements (the first pass reads every segment for its id only). */
function idOf(r: RawSegment, s: Separators): string {
  const i = r.text.indexOf(s.element);
  return (i < 0 ? r.text : r.text.slice(0, i)).trim().toUpperCase();
}

/** What a non-835 transaction is, in words. */
function describeTransaction(setId: string, version: string | null): string {
  const v = version ?? '';
  if (setId === '837') return `an 837 health care claim${/X223/.test(v) ? ' (institutional)' : /X222/.test(v) ? ' (professional)' : /X224/.test(v) ? ' (dental)' : ''}, not an 835 remittance`;
  if (setId === '277') return 'a 277 claim status response, not an 835 remittance';
  if (setId === '997') return 'a 997 functional acknowledgment, not an 835 remittance';
  if (setId === 'TA1') return 'a TA1 interchange acknowledgment, not an 835 remittance';
  return `an X12 ${setId || '(unnamed)'} transaction, not an 835 remittance`;
}

/** A 999 implementation acknowledgment, or a 277CA claim acknowledgment (005010X214): explained too. */
const isAcknowledgment = (t: Transaction): boolean => t.set_id === '999' || (t.set_id === '277' && /X214/.test(t.version ?? ''));

/** Whether a version names 4010 (004010X091A1, 4010). */
const is4010 = (v: string | null): boolean => v !== null && /^0*4010/.test(v.trim());

/**
 * Reads an X12 file into its 835 transactions and its 999 / 277CA acknowledgments. 422
 * (`ValidationError`, loc `['body', 'segment', index, id]`) for a file that is not X12, has neither
 * (naming what it is: an 837, a 277 claim status response ...), is a 4010 835, or is cut short (no
 * SE, GE or IEA where the envelope opened one).
 */
export function readX12(bytes: Buffer | string): X12File {
  let text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const head = text.slice(0, 4096);
  // NUL bytes, or mostly invalid UTF-8 (a stray Latin-1 letter in a payer name is read, not refused).
  if (head.includes('\u0000') || (head.match(/\uFFFD/g)?.length ?? 0) > head.length / 20) {
    throw new ValidationError([{ loc: ['body'], msg: 'not an X12 file: the body is binary (NUL bytes or invalid UTF-8)', type: 'x12_unreadable' }]);
  }
  const { separators, start, hasIsa } = detectSeparators(text);
  const findings: ReaderFinding[] = [];
  const missing: Issue[] = [];
  const all: { tx: Transaction; st: Segment; claims: number }[] = [];
  // A transaction being read: its ST, segments counted so far (for SE01), CLPs, and where it starts.
  interface OpenSet {
    interchange: number;
    set_id: string;
    control_number: string;
    version: string | null;
    group_date: string | null;
    st: Segment;
    count: number;
    claims: number;
    from: number;
  }
  /** A closed ST..SE as a transaction whose segments are read again from `from` to `to` when asked. */
  const closed = (o: OpenSet, to: number): Transaction => {
    const each = () => (function* () {
      for (const r of rawSegments(text, separators, o.from, to, o.st.index)) yield segmentOf(r, separators);
    })();
    return {
      interchange: o.interchange,
      set_id: o.set_id,
      control_number: o.control_number,
      version: o.version,
      group_date: o.group_date,
      each,
      get segments() {
        return [...each()];
      },
    };
  };

  let interchange = -1;
  let inIsa: { seg: Segment; groups: number } | null = null;
  let inGs: { seg: Segment; sets: number; version: string | null; date: string | null } | null = null;
  let inSt: OpenSet | null = null;
  const cut = (what: string, before: Segment | null, open: Segment) =>
    missing.push({
      loc: ['body', 'segment', open.index, open.id],
      msg: `the file is cut short: ${what} ${before ? `before segment ${before.index} (${before.id})` : 'at the end of the file'}`,
      type: 'x12_truncated',
      ctx: { missing: what.split(' ')[1]!, opened_at: open.index },
    });

  let segments = 0;
  for (const raw of rawSegments(text, separators, start, text.length, 1)) {
    segments++;
    // Envelope segments are split into elements; the rest only named (counted, or found out of place).
    const id = idOf(raw, separators);
    const seg: Segment = ENVELOPE.has(id) ? segmentOf(raw, separators) : { index: raw.index, id, el: [] };
    switch (seg.id) {
      case 'ISA':
        if (inSt) cut(`no SE closes the ST of segment ${inSt.st.index}`, seg, inSt.st), (inSt = null);
        if (inGs) cut(`no GE closes the GS of segment ${inGs.seg.index}`, seg, inGs.seg), (inGs = null);
        if (inIsa) cut(`no IEA closes the ISA of segment ${inIsa.seg.index}`, seg, inIsa.seg);
        interchange++;
        inIsa = { seg, groups: 0 };
        break;
      case 'GS':
        if (inSt) cut(`no SE closes the ST of segment ${inSt.st.index}`, seg, inSt.st), (inSt = null);
        if (inGs) cut(`no GE closes the GS of segment ${inGs.seg.index}`, seg, inGs.seg);
        if (interchange < 0) interchange = 0;
        inGs = { seg, sets: 0, version: seg.el[7]?.trim() || null, date: seg.el[3]?.trim() || null };
        if (inIsa) inIsa.groups++;
        break;
      case 'ST':
        if (inSt) cut(`no SE closes the ST of segment ${inSt.st.index}`, seg, inSt.st);
        if (interchange < 0) interchange = 0;
        inSt = {
          interchange,
          set_id: (seg.el[0] ?? '').trim(),
          control_number: (seg.el[1] ?? '').trim(),
          version: seg.el[2]?.trim() || inGs?.version || null,
          group_date: inGs?.date ?? null,
          st: seg,
          count: 1,
          claims: 0,
          from: raw.start,
        };
        if (inGs) inGs.sets++;
        break;
      case 'SE': {
        if (!inSt) {
          findings.push({ code: 'segment_outside_transaction', message: `segment ${seg.index} (SE) closes no open ST`, interchange: Math.max(interchange, 0), transaction: null, segment_index: seg.index, segment_id: seg.id });
          break;
        }
        inSt.count++;
        const declared = Number((seg.el[0] ?? '').trim());
        if (declared !== inSt.count) {
          findings.push({
            code: 'segment_count_mismatch',
            message: `SE01 says ${seg.el[0]?.trim() || '(empty)'} segments; the transaction has ${inSt.count} (ST through SE)`,
            interchange: inSt.interchange,
            transaction: null,
            segment_index: seg.index,
            segment_id: seg.id,
          });
        }
        all.push({ tx: closed(inSt, raw.next), st: inSt.st, claims: inSt.claims });
        inSt = null;
        break;
      }
      case 'GE':
        if (inSt) cut(`no SE closes the ST of segment ${inSt.st.index}`, seg, inSt.st), (inSt = null);
        if (inGs && Number((seg.el[0] ?? '').trim()) !== inGs.sets) {
          findings.push({ code: 'transaction_count_mismatch', message: `GE01 says ${seg.el[0]?.trim() || '(empty)'} transactions; the group has ${inGs.sets}`, interchange: Math.max(interchange, 0), transaction: null, segment_index: seg.index, segment_id: seg.id });
        }
        inGs = null;
        break;
      case 'IEA':
        if (inSt) cut(`no SE closes the ST of segment ${inSt.st.index}`, seg, inSt.st), (inSt = null);
        if (inGs) cut(`no GE closes the GS of segment ${inGs.seg.index}`, seg, inGs.seg), (inGs = null);
        if (inIsa && Number((seg.el[0] ?? '').trim()) !== inIsa.groups) {
          findings.push({ code: 'group_count_mismatch', message: `IEA01 says ${seg.el[0]?.trim() || '(empty)'} functional groups; the interchange has ${inIsa.groups}`, interchange: Math.max(interchange, 0), transaction: null, segment_index: seg.index, segment_id: seg.id });
        }
        inIsa = null;
        break;
      default:
        if (inSt) {
          inSt.count++;
          if (id === 'CLP') inSt.claims++;
        }
        else findings.push({ code: 'segment_outside_transaction', message: `segment ${seg.index} (${seg.id.slice(0, 3)}) is outside any ST..SE transaction: ignored`, interchange: Math.max(interchange, 0), transaction: null, segment_index: seg.index, segment_id: seg.id.slice(0, 3) });
    }
  }
  if (inSt) cut(`no SE closes the ST of segment ${inSt.st.index}`, null, inSt.st);
  if (inGs) cut(`no GE closes the GS of segment ${inGs.seg.index}`, null, inGs.seg);
  if (inIsa) cut(`no IEA closes the ISA of segment ${inIsa.seg.index}`, null, inIsa.seg);
  if (missing.length) throw new ValidationError(missing);
  if (all.length === 0) {
    throw new ValidationError([{ loc: ['body'], msg: hasIsa ? 'no ST..SE transaction in the file' : 'not an X12 file: no ST..SE transaction was found', type: 'x12_unreadable' }]);
  }

  const remits: Transaction[] = [];
  const acks: Transaction[] = [];
  let claims = 0;
  for (const { tx: t, st, claims: n } of all) {
    if (isAcknowledgment(t)) {
      acks.push(t);
      continue;
    }
    if (t.set_id !== '835') {
      findings.push({ code: 'other_transaction', message: `transaction at segment ${st.index} is ${describeTransaction(t.set_id, t.version)}: skipped`, interchange: t.interchange, transaction: null, segment_index: st.index, segment_id: 'ST' });
      continue;
    }
    if (is4010(t.version)) {
      throw new ValidationError([
        {
          loc: ['body', 'segment', st.index, 'ST'],
          msg: `a 4010 835 (${t.version}): only 5010 remittances (005010X221A1, the version HIPAA requires since 2012) are explained; ask the payer or clearinghouse for the 5010 file`,
          type: 'x12_version',
          ctx: { version: t.version },
        },
      ]);
    }
    remits.push(t);
    claims += n;
  }
  if (remits.length === 0 && acks.length === 0) {
    const kinds = [...new Set(all.map(({ tx: t }) => describeTransaction(t.set_id, t.version)))];
    const first = all[0]!.st;
    throw new ValidationError([
      { loc: ['body', 'segment', first.index, 'ST'], msg: `this file is ${kinds.join('; and ')}: send an 835 remittance, or a 999 or 277CA acknowledgment`, type: 'x12_not_835', ctx: { transaction_sets: [...new Set(all.map(({ tx: t }) => t.set_id))] } },
    ]);
  }
  return { separators, interchanges: Math.max(interchange + 1, 1), claims, segments, transactions: remits, acknowledgments: acks, findings };
}
