/**
 * An X12 reader (owned, not a library: it parses in about a quarter of node-x12's time, keeps every
 * segment's position for findings, and reads the quirks payers' files have): separators from the
 * ISA header (element = ISA's 4th byte, repetition = ISA11 unless `U`, component = ISA16, segment
 * terminator = the byte after ISA16, a newline terminator meaning "one segment a line"), or `*`,
 * `:`, `~` for a file without ISA (companion-guide samples send ST..SE alone). A byte-order mark,
 * prose before the ISA, CRLF, indentation and several interchanges in one file are read. The
 * envelope is checked (SE01, GE01 and IEA01 counts are findings; an ST, GS or ISA left open is an
 * error naming where); what each transaction is, an 835 or an 837, is its reader's business
 * (`server/remittances/x12.ts`, `server/claims/`). Nothing here echoes the file in an error: an
 * 835 or 837 carries PHI. See README.md.
 */

/** Why a file cannot be read, each issue with its place (`['body', 'segment', index, id]`) and kind. */
export interface X12Issue {
  loc: (string | number)[];
  msg: string;
  type: 'x12_unreadable' | 'x12_truncated' | 'x12_version' | 'x12_not_835' | 'x12_not_837';
  ctx?: Record<string, unknown>;
}

export class X12Error extends Error {
  constructor(readonly issues: X12Issue[]) {
    super(issues.map((i) => i.msg).join('; '));
  }
}

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
  /** Its ST segment. */
  st: Segment;
  /** How many of each segment id the reader was asked to count (`ReadOptions.count`) it holds. */
  counts: Readonly<Record<string, number>>;
}

/** A file read: its separators, envelope counts and every transaction, in file order. */
export interface X12Envelope {
  separators: Separators;
  interchanges: number;
  /** Every segment of the file: the work reading it does. */
  segments: number;
  hasIsa: boolean;
  transactions: Transaction[];
  findings: ReaderFinding[];
}

export interface ReadOptions {
  /** Segment ids to count per transaction without splitting them (CLP: an 835's claims; CLM: an 837's). */
  count?: readonly string[];
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
  if (!st) throw new X12Error([{ loc: ['body'], msg: 'not an X12 file: no ISA, GS or ST segment was found', type: 'x12_unreadable' }]);
  const start = st.index + (st[0].length - 3);
  const element = st[2]!;
  const segment = text.includes('~') ? '~' : '\n';
  return { separators: { ...DEFAULT, element, segment }, start, hasIsa: false };
}

const unreadable = (msg: string, index: number, id: string) => new X12Error([{ loc: ['body', 'segment', index, id], msg, type: 'x12_unreadable' }]);

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

/** A transaction being read: its ST, segments counted so far (for SE01), the ids counted, and where it starts. */
interface OpenSet {
  interchange: number;
  set_id: string;
  control_number: string;
  version: string | null;
  group_date: string | null;
  st: Segment;
  count: number;
  counts: Record<string, number>;
  from: number;
}

/**
 * The envelope pass: every segment read for its id only (the envelope's split into elements),
 * ISA/GS/ST opened and closed, counts checked, each closed ST..SE kept as a transaction whose
 * segments are read again from the text when asked. One method per envelope segment.
 */
class EnvelopeReader {
  readonly findings: ReaderFinding[] = [];
  readonly missing: X12Issue[] = [];
  readonly transactions: Transaction[] = [];
  interchange = -1;
  segments = 0;
  private isa: { seg: Segment; groups: number } | null = null;
  private gs: { seg: Segment; sets: number; version: string | null; date: string | null } | null = null;
  private st: OpenSet | null = null;

  constructor(
    private readonly text: string,
    private readonly separators: Separators,
    private readonly counted: ReadonlySet<string>,
  ) {}

  private cut(what: string, before: Segment | null, open: Segment): void {
    this.missing.push({
      loc: ['body', 'segment', open.index, open.id],
      msg: `the file is cut short: ${what} ${before ? `before segment ${before.index} (${before.id})` : 'at the end of the file'}`,
      type: 'x12_truncated',
      ctx: { missing: what.split(' ')[1]!, opened_at: open.index },
    });
  }

  private finding(code: ReaderFinding['code'], message: string, seg: Segment, interchange = Math.max(this.interchange, 0)): void {
    this.findings.push({ code, message, interchange, transaction: null, segment_index: seg.index, segment_id: seg.id.slice(0, 3) });
  }

  /** Closes what a new ISA, GS, GE or IEA finds still open (`levels`: which of ST, GS, ISA it closes). */
  private closeOpen(before: Segment | null, levels: { st?: boolean; gs?: boolean; isa?: boolean }): void {
    if (levels.st && this.st) this.cut(`no SE closes the ST of segment ${this.st.st.index}`, before, this.st.st), (this.st = null);
    if (levels.gs && this.gs) this.cut(`no GE closes the GS of segment ${this.gs.seg.index}`, before, this.gs.seg), (this.gs = null);
    if (levels.isa && this.isa) this.cut(`no IEA closes the ISA of segment ${this.isa.seg.index}`, before, this.isa.seg), (this.isa = null);
  }

  read(from: number): void {
    for (const raw of rawSegments(this.text, this.separators, from, this.text.length, 1)) {
      this.segments++;
      // Envelope segments are split into elements; the rest only named (counted, or found out of place).
      const id = idOf(raw, this.separators);
      const seg: Segment = ENVELOPE.has(id) ? segmentOf(raw, this.separators) : { index: raw.index, id, el: [] };
      if (id === 'ISA') this.onIsa(seg);
      else if (id === 'GS') this.onGs(seg);
      else if (id === 'ST') this.onSt(seg, raw);
      else if (id === 'SE') this.onSe(seg, raw);
      else if (id === 'GE') this.onGe(seg);
      else if (id === 'IEA') this.onIea(seg);
      else if (this.st) {
        this.st.count++;
        if (this.counted.has(id)) this.st.counts[id] = (this.st.counts[id] ?? 0) + 1;
      } else this.finding('segment_outside_transaction', `segment ${seg.index} (${seg.id.slice(0, 3)}) is outside any ST..SE transaction: ignored`, seg);
    }
    this.closeOpen(null, { st: true, gs: true, isa: true });
  }

  private onIsa(seg: Segment): void {
    this.closeOpen(seg, { st: true, gs: true, isa: true });
    this.interchange++;
    this.isa = { seg, groups: 0 };
  }

  private onGs(seg: Segment): void {
    this.closeOpen(seg, { st: true, gs: true });
    if (this.interchange < 0) this.interchange = 0;
    this.gs = { seg, sets: 0, version: seg.el[7]?.trim() || null, date: seg.el[3]?.trim() || null };
    if (this.isa) this.isa.groups++;
  }

  private onSt(seg: Segment, raw: RawSegment): void {
    if (this.st) this.cut(`no SE closes the ST of segment ${this.st.st.index}`, seg, this.st.st);
    if (this.interchange < 0) this.interchange = 0;
    const gs = this.gs;
    this.st = { interchange: this.interchange, set_id: (seg.el[0] ?? '').trim(), control_number: (seg.el[1] ?? '').trim(), version: seg.el[2]?.trim() || gs?.version || null, group_date: gs?.date ?? null, st: seg, count: 1, counts: {}, from: raw.start };
    if (gs) gs.sets++;
  }

  private onSe(seg: Segment, raw: RawSegment): void {
    const o = this.st;
    if (!o) return this.finding('segment_outside_transaction', `segment ${seg.index} (SE) closes no open ST`, seg);
    o.count++;
    if (Number((seg.el[0] ?? '').trim()) !== o.count) this.finding('segment_count_mismatch', `SE01 says ${seg.el[0]?.trim() || '(empty)'} segments; the transaction has ${o.count} (ST through SE)`, seg, o.interchange);
    this.transactions.push(this.closed(o, raw.next));
    this.st = null;
  }

  private onGe(seg: Segment): void {
    this.closeOpen(seg, { st: true });
    if (this.gs && Number((seg.el[0] ?? '').trim()) !== this.gs.sets) this.finding('transaction_count_mismatch', `GE01 says ${seg.el[0]?.trim() || '(empty)'} transactions; the group has ${this.gs.sets}`, seg);
    this.gs = null;
  }

  private onIea(seg: Segment): void {
    this.closeOpen(seg, { st: true, gs: true });
    if (this.isa && Number((seg.el[0] ?? '').trim()) !== this.isa.groups) this.finding('group_count_mismatch', `IEA01 says ${seg.el[0]?.trim() || '(empty)'} functional groups; the interchange has ${this.isa.groups}`, seg);
    this.isa = null;
  }

  /** A closed ST..SE as a transaction whose segments are read again from `from` to `to` when asked. */
  private closed(o: OpenSet, to: number): Transaction {
    const { text, separators } = this;
    const each = () =>
      (function* () {
        for (const r of rawSegments(text, separators, o.from, to, o.st.index)) yield segmentOf(r, separators);
      })();
    return {
      interchange: o.interchange,
      set_id: o.set_id,
      control_number: o.control_number,
      version: o.version,
      group_date: o.group_date,
      st: o.st,
      counts: o.counts,
      each,
      get segments() {
        return [...each()];
      },
    };
  }
}

/**
 * Reads an X12 file's envelope and transactions (any transaction set). Throws `X12Error` for a
 * file that is not X12 (binary, no ISA, GS or ST, no ST..SE at all) or is cut short (an ST, GS or
 * ISA no SE, GE or IEA closes), each issue at the segment it is about; a count that disagrees is a
 * finding, not an error.
 */
export function readEnvelope(bytes: Buffer | string, o: ReadOptions = {}): X12Envelope {
  let text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const head = text.slice(0, 4096);
  // NUL bytes, or mostly invalid UTF-8 (a stray Latin-1 letter in a payer name is read, not refused).
  if (head.includes('\u0000') || (head.match(/\uFFFD/g)?.length ?? 0) > head.length / 20) {
    throw new X12Error([{ loc: ['body'], msg: 'not an X12 file: the body is binary (NUL bytes or invalid UTF-8)', type: 'x12_unreadable' }]);
  }
  const { separators, start, hasIsa } = detectSeparators(text);
  const r = new EnvelopeReader(text, separators, new Set(o.count ?? []));
  r.read(start);
  if (r.missing.length) throw new X12Error(r.missing);
  if (r.transactions.length === 0) throw new X12Error([{ loc: ['body'], msg: hasIsa ? 'no ST..SE transaction in the file' : 'not an X12 file: no ST..SE transaction was found', type: 'x12_unreadable' }]);
  return { separators, interchanges: Math.max(r.interchange + 1, 1), segments: r.segments, hasIsa, transactions: r.transactions, findings: r.findings };
}
