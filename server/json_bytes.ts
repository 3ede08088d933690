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
 * A handler's answer already serialized by `writeJson`, in parts of about a megabyte that HTTP
 * writes one after another (never joined: a large answer is held once); `T` is the answer it writes.
 */
export class JsonBytes<T = unknown> {
  declare readonly answer?: T;
  constructor(readonly parts: Buffer[]) {}

  /** The parts as one buffer (a transport that needs it whole: MCP, the answer cache). */
  joined(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }
}

/** `value` as a `JsonBytes` answer: for a route whose answer may outgrow one string. */
export function serialized<T>(value: T): JsonBytes<T> {
  const parts: Buffer[] = [];
  writeJson(value, (s) => parts.push(Buffer.from(s, 'utf8')));
  return new JsonBytes<T>(parts);
}
