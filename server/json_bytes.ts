/**
 * JSON text as bytes, for an answer too large to be one JavaScript string: V8 caps a string near
 * 512 MiB, and an 835 of 25 MB explained line by line is about 40 times its size. The outer
 * `depth` levels of objects and arrays are written member by member, each deeper value with
 * `JSON.stringify`, so no string is larger than one such value or `CHUNK` characters. The text is
 * exactly `JSON.stringify(value)` (members whose value is undefined or a function are left out of
 * objects and written `null` in arrays, `toJSON` is honoured): a test holds the two equal.
 */
const CHUNK = 1 << 20;

export function jsonBytes(value: unknown, depth = 4): Buffer {
  const out: Buffer[] = [];
  writeJson(value, (s) => out.push(Buffer.from(s, 'utf8')), depth);
  return Buffer.concat(out);
}

/** `jsonBytes`'s text in parts of about `CHUNK` characters, each handed to `write` (a CLI's stdout). */
export function writeJson(value: unknown, write: (part: string) => void, depth = 4): void {
  let pending = '';
  const put = (s: string) => {
    pending += s;
    if (pending.length >= CHUNK) {
      write(pending);
      pending = '';
    }
  };
  const prepared = (v: unknown): unknown => (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON: () => unknown }).toJSON() : v);
  const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
  const walk = (v: unknown, level: number, inArray: boolean): void => {
    const x = prepared(v);
    if (level >= depth || x === null || typeof x !== 'object') {
      put(skipped(x) ? (inArray ? 'null' : '') : JSON.stringify(x));
      return;
    }
    if (Array.isArray(x)) {
      put('[');
      for (let i = 0; i < x.length; i++) {
        if (i) put(',');
        walk(x[i], level + 1, true);
      }
      put(']');
      return;
    }
    put('{');
    let first = true;
    for (const [k, member] of Object.entries(x)) {
      if (skipped(prepared(member))) continue;
      put(`${first ? '' : ','}${JSON.stringify(k)}:`);
      first = false;
      walk(member, level + 1, false);
    }
    put('}');
  };
  walk(value, 0, false);
  if (pending) write(pending);
}

/**
 * An answer written as it is produced, at the reader's pace: `pipe` hands its parts to `write`
 * one by one and awaits each (HTTP resolves a write once the socket takes more, and rejects it when
 * the connection closed or the reader stopped reading for the write timeout: the producer then
 * stops and lets go of everything it held). `cancel` is called instead when the answer will never
 * be written (a HEAD request, a failure before the first byte). `T` is the answer it writes.
 */
export class StreamedJson<T = unknown> {
  declare readonly answer?: T;
  constructor(
    readonly pipe: (write: (part: Buffer) => Promise<void>) => Promise<void>,
    readonly cancel: () => void,
    /** The answer's media type when it is not JSON (a remittance's posting file: CSV). */
    readonly contentType: string | null = null,
  ) {}

  /** The same stream answered as another media type. */
  as(contentType: string): StreamedJson<T> {
    return new StreamedJson<T>(this.pipe, this.cancel, contentType);
  }

  /** The whole answer in one buffer (MCP, a test): read at once, no reader to wait for. */
  async joined(): Promise<Buffer> {
    const parts: Buffer[] = [];
    await this.pipe(async (p) => void parts.push(p));
    return Buffer.concat(parts);
  }
}

/**
 * Connects a producer that pushes parts to the `StreamedJson` HTTP pipes: `push` waits until the
 * answer is being written, then for the reader (each part's write), and throws once the reader is
 * gone (the producer stops); `end` and `fail` settle the stream. A producer may start before the
 * answer is piped: its first push waits.
 */
export class StreamRelay {
  private write: ((part: Buffer) => Promise<void>) | null = null;
  private waiting: (() => void)[] = [];
  private failure: Error | null = null;
  private settle!: { resolve: () => void; reject: (e: Error) => void };
  private readonly settled = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));

  constructor(private readonly onCancel: () => void = () => undefined) {
    // Nobody may await `settled` (a cancelled answer): never an unhandled rejection.
    this.settled.catch(() => undefined);
  }

  async push(part: Buffer): Promise<void> {
    while (!this.write && !this.failure) await new Promise<void>((r) => this.waiting.push(r));
    if (this.failure) throw this.failure;
    try {
      await this.write!(part);
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)));
      throw this.failure;
    }
  }

  end(): void {
    this.settle.resolve();
  }

  fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    for (const w of this.waiting.splice(0)) w();
    this.settle.reject(e);
  }

  readonly stream = new StreamedJson(
    async (write) => {
      this.write = write;
      for (const w of this.waiting.splice(0)) w();
      await this.settled;
    },
    () => {
      this.fail(new Error('the answer was not written'));
      this.onCancel();
    },
  );
}
