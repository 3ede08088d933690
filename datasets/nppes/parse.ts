import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { IngestError } from '../_shared/issue.js';
import { cp1252, type SourceFile } from '../_shared/source.js';
import type { ParseContext, ParsedItem } from '../types.js';
import { kindOfHeader, layoutOf, type Layout } from './layout.js';
import { otherNameRow, practiceLocationRow, providerRow, type Built } from './rows.js';
import type { OtherNameRow, PracticeLocationRow, ProviderRow } from './schema.js';

export type NppesRow = ProviderRow | PracticeLocationRow | OtherNameRow;

/**
 * The physical lines of a file, streamed (the full data file is ~9 GB: never read whole), each
 * decoded as UTF-8 when it is valid UTF-8 and as CP1252 otherwise, without its line end.
 */
async function* lines(file: SourceFile, ctx: ParseContext): AsyncGenerator<string> {
  let rest: Buffer | null = null;
  let bytes = 0;
  const decode = (b: Buffer) => {
    const end = b.length > 0 && b[b.length - 1] === 13 ? b.length - 1 : b.length;
    const s = b.subarray(b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0, end);
    return isUtf8(s) ? s.toString('utf8') : cp1252(s);
  };
  for await (const chunk of createReadStream(file.path, { highWaterMark: 1 << 20 })) {
    const buf: Buffer = rest ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
      const line = buf.subarray(start, nl);
      yield decode(line);
      start = nl + 1;
    }
    rest = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
    bytes += (chunk as Buffer).length;
    ctx.onBytes(bytes);
  }
  if (rest && rest.length) yield decode(rest);
}

/** A CSV record's fields, or where its quoting is open at the end of the text. */
export function splitCsv(text: string): { fields: string[]; open: boolean } {
  const fields: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    if (text[i] === '"') {
      let v = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) return { fields, open: true };
        v += text.slice(j, q);
        if (text[q + 1] === '"') {
          v += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(v);
      // Anything between the closing quote and the next comma is kept (a malformed cell, judged by the rules).
      const comma = text.indexOf(',', i);
      if (comma < 0) {
        if (i < n) fields[fields.length - 1] += text.slice(i);
        return { fields, open: false };
      }
      if (comma > i) fields[fields.length - 1] += text.slice(i, comma);
      i = comma + 1;
    } else {
      const comma = text.indexOf(',', i);
      if (comma < 0) {
        fields.push(text.slice(i));
        return { fields, open: false };
      }
      fields.push(text.slice(i, comma));
      i = comma + 1;
    }
  }
}

/** Records of a file: fields and the line each starts on (a quoted cell may span lines). */
async function* records(file: SourceFile, ctx: ParseContext): AsyncGenerator<{ line: number; fields: string[]; blank: boolean }> {
  let line = 0;
  let pending: { line: number; text: string } | null = null;
  for await (const l of lines(file, ctx)) {
    line++;
    const rec: { line: number; text: string } = pending ? { line: pending.line, text: `${pending.text}\n${l}` } : { line, text: l };
    const s = splitCsv(rec.text);
    if (s.open) {
      pending = rec;
      continue;
    }
    pending = null;
    yield { line: rec.line, fields: s.fields, blank: rec.text === '' };
  }
  if (pending) throw new IngestError('the file ends inside a quoted field', file.name, pending.line);
}

/**
 * Reads one NPPES file (data, practice location or other name file, told apart by header): maps
 * the header by name, then each record through the row rules. A record whose field count is not
 * the header's is rejected naming both; empty lines are skipped.
 */
export async function* parseNppesFile(file: SourceFile, ctx: ParseContext): AsyncGenerator<ParsedItem<NppesRow>> {
  let layout: Layout | null = null;
  const seen = new Map<string, number>();
  for await (const r of records(file, ctx)) {
    if (!layout) {
      const kind = kindOfHeader(r.fields);
      if (!kind) throw new IngestError('no NPPES header row (expected the column names of an npidata, pl or othername file)', file.name, r.line);
      layout = layoutOf(kind, r.fields, file.name);
      continue;
    }
    if (r.blank) continue;
    const table = layout.kind === 'npidata' ? 'provider' : layout.kind === 'pl' ? 'practice_location' : 'other_name';
    if (r.fields.length !== layout.width) {
      yield { line: r.line, table, issues: [{ loc: ['row', r.line], msg: `${r.fields.length} fields, the header has ${layout.width}`, type: 'row_width', input: r.fields.length }] };
      continue;
    }
    let b: Built<NppesRow>;
    if (layout.kind === 'npidata') b = providerRow(layout, r.fields, r.line);
    else {
      const npi = r.fields[layout.at.get('npi')!] ?? '';
      const ordinal = (seen.get(npi) ?? 0) + 1;
      b = layout.kind === 'pl' ? practiceLocationRow(layout, r.fields, r.line, ordinal) : otherNameRow(layout, r.fields, r.line, ordinal);
      if (b.row) seen.set(npi, ordinal);
    }
    yield b.row ? { line: r.line, table, row: b.row } : { line: r.line, table, issues: b.issues };
  }
  if (!layout) throw new IngestError('file is empty', file.name, 1);
}
