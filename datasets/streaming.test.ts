import type * as fs from 'node:fs';
import type * as fsp from 'node:fs/promises';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../testing/datasets.js';
import { readRecords, sampleFile } from './_shared/source.js';
import { DATASETS } from './registry.js';

// What each file stream has handed its reader so far (the newest stream last). A reader that
// streams has been handed a chunk or two of a large file when it yields its first item; one that
// reads the whole file first has been handed all of it (or never opened a stream).
const streams: { path: string; bytes: number }[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const createReadStream = ((...args: Parameters<typeof real.createReadStream>) => {
    const s = real.createReadStream(...args);
    const seen = { path: String(args[0]), bytes: 0 };
    streams.push(seen);
    const iterate = s[Symbol.asyncIterator].bind(s);
    s[Symbol.asyncIterator] = async function* () {
      for await (const chunk of iterate()) {
        seen.bytes += (chunk as Buffer | string).length;
        yield chunk;
      }
    } as typeof s[typeof Symbol.asyncIterator];
    return s;
  }) as typeof real.createReadStream;
  return { ...real, createReadStream, default: { ...real, createReadStream } };
});
// Files read whole (`readFile`), by path.
const wholeReads = new Set<string>();
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsp>();
  const readFile = ((path: Parameters<typeof real.readFile>[0], ...rest: unknown[]) => {
    wholeReads.add(String(path));
    return (real.readFile as (...a: unknown[]) => Promise<unknown>)(path, ...rest);
  }) as typeof real.readFile;
  return { ...real, readFile, default: { ...real, readFile } };
});

/** Bytes of each generated file: many times the readers' 1 MiB chunk. */
const LARGE = 5 << 20;
/** What a streaming reader may have been handed when its first item comes out: two chunks. */
const HANDED_AT_FIRST = 2 << 20;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-streaming-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The stream of `path` opened last, and what it had handed over. */
const lastStream = (path: string) => streams.filter((s) => s.path === path).at(-1);

describe('readRecords reads a delimited file as a stream', () => {
  it('yields its first record after a chunk or two of 5 MB, then every record, decoded as the whole file is', async () => {
    const rows: string[] = ['"code","description"'];
    for (let bytes = 0; bytes < LARGE; bytes += rows.at(-1)!.length + 2) rows.push(`"${String(rows.length).padStart(6, '0')}","a description, quoted, of row ${rows.length}"`);
    // A quoted cell across lines, a CR-LF split between chunks is not two line ends, and one
    // CP1252 byte at the very end decides the whole file's encoding (an en dash, 0x96).
    rows.push('"999999","two\r\nlines"');
    const body = Buffer.concat([Buffer.from(`${rows.join('\r\n')}\r\n"last","en `, 'latin1'), Buffer.from([0x96]), Buffer.from(' dash"\r\n')]);
    const path = join(dir, 'large.csv');
    await writeFile(path, body);
    let first: number | undefined;
    const out: string[][] = [];
    for await (const r of readRecords({ path, name: 'large.csv', size: body.length })) {
      first ??= lastStream(path)!.bytes;
      out.push(r.fields);
    }
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(HANDED_AT_FIRST);
    expect(lastStream(path)!.bytes).toBe(body.length);
    expect(out).toHaveLength(rows.length + 1);
    expect(out[1]).toEqual(['000001', 'a description, quoted, of row 1']);
    expect(out.at(-2)).toEqual(['999999', 'two\nlines']);
    expect(out.at(-1)).toEqual(['last', 'en \u2013 dash']);
  });

  it('keeps a UTF-8 character cut by a chunk boundary whole, and a CR at a chunk end with its LF', async () => {
    // 'é' (2 bytes) straddles the 1 MiB boundary; later a CR ends the second chunk exactly.
    const head = 'x'.repeat((1 << 20) - 1);
    const mid = 'y'.repeat((1 << 20) - 3);
    const text = `${head}é\r\n${mid}\r\nend\r\n`;
    const path = join(dir, 'boundary.csv');
    await writeFile(path, text);
    const out: string[][] = [];
    for await (const r of readRecords({ path, name: 'boundary.csv', size: Buffer.byteLength(text) })) out.push(r.fields);
    expect(out.map((f) => f[0]!.length)).toEqual([head.length + 1, mid.length, 3]);
    expect(out[0]![0]!.endsWith('xé')).toBe(true);
  });
});

describe('sampleFile', () => {
  it('reads a UTF-8 file as UTF-8 when its 64 KiB sample cuts a character, and a CP1252 byte as CP1252', async () => {
    const path = join(dir, 'cut.csv');
    await writeFile(path, `${'x'.repeat(65535)}é tail\n`);
    const cut = await sampleFile({ path, name: 'cut.csv', size: 65535 + 9 });
    expect(cut.text).toBe('x'.repeat(65535));
    const cp = join(dir, 'cp.csv');
    await writeFile(cp, Buffer.concat([Buffer.from('a'.repeat(100)), Buffer.from([0x96]), Buffer.from('b')]));
    expect((await sampleFile({ path: cp, name: 'cp.csv', size: 102 })).text).toBe(`${'a'.repeat(100)}\u2013b`);
  });
});

/** Every seed file of a delimited or line format, by dataset. */
async function seedFiles(id: string): Promise<string[]> {
  const root = join(REPO_ROOT, 'seeds', id);
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else if (!['.json', '.yaml', '.yml', '.md', '.xlsx', '.pdf', '.zip'].includes(extname(e.name).toLowerCase())) out.push(join(d, e.name));
    }
  };
  await walk(root);
  return out;
}

/**
 * Datasets without a delimited or line-format source: curated YAML (a few kilobytes, read whole
 * and validated as one document) or no seed at all (their formats are workbooks or PDFs).
 */
const NOT_LINE_FORMATS: Record<string, string> = {
  payers: 'curated YAML',
  mac_jurisdictions: 'curated YAML',
  manufacturer_340b: 'curated YAML',
  medicare_yearly_figures: 'curated YAML',
  opps_cap: 'no seed: its rows come with the OPPS release',
};

describe('every loader of a delimited or line format streams its file', () => {
  it('names every dataset without one', async () => {
    const without: string[] = [];
    for (const d of DATASETS) if ((await seedFiles(d.id)).length === 0) without.push(d.id);
    expect(without.sort()).toEqual(Object.keys(NOT_LINE_FORMATS).sort());
  });
  for (const dataset of DATASETS.filter((d) => !(d.id in NOT_LINE_FORMATS))) {
    it(`${dataset.id}: its first item comes out of a 5 MB file after a chunk or two, and the file is never read whole`, async () => {
      for (const seed of await seedFiles(dataset.id)) {
        // The seed, then its last line again and again past 5 MB (its first item may be a reject: the reading is what is measured).
        const text = (await readFile(seed, 'latin1')).replace(/\r?\n$/, '');
        const eol = text.includes('\r\n') ? '\r\n' : '\n';
        const last = text.split(/\r?\n/).at(-1)!;
        const path = join(dir, `${dataset.id}-${seed.split('/').at(-1)}`);
        await writeFile(path, `${text}${eol}${`${last}${eol}`.repeat(Math.ceil(LARGE / (last.length + eol.length)))}`, 'latin1');
        const size = (await stat(path)).size;
        wholeReads.delete(path);
        let first: number | undefined;
        for await (const item of dataset.parse({ path, name: seed.split('/').at(-1)!, size }, { onBytes: () => undefined })) {
          void item;
          first = lastStream(path)?.bytes ?? Number.POSITIVE_INFINITY;
          break;
        }
        expect(first, seed).toBeLessThanOrEqual(HANDED_AT_FIRST);
        expect(wholeReads.has(path), `${seed} read whole`).toBe(false);
      }
    });
  }
});

describe('the openFDA JSON export streams too', () => {
  it('its first product comes out of a 5 MB export after a chunk or two, and the file is never read whole', async () => {
    const seed = await readFile(join(REPO_ROOT, 'seeds/fda_ndc/drug-ndc-0001-of-0001.json'), 'utf8');
    const { meta, results } = JSON.parse(seed) as { meta: unknown; results: unknown[] };
    const one = JSON.stringify(results[0]);
    const path = join(dir, 'drug-ndc-0001-of-0001.json');
    await writeFile(path, `{"meta": ${JSON.stringify(meta)}, "results": [${Array.from({ length: Math.ceil(LARGE / one.length) }, () => one).join(',\n')}]}`);
    const size = (await stat(path)).size;
    expect(size).toBeGreaterThan(LARGE);
    const fda = DATASETS.find((d) => d.id === 'fda_ndc')!;
    let first: number | undefined;
    for await (const item of fda.parse({ path, name: 'drug-ndc-0001-of-0001.json', size }, { onBytes: () => undefined })) {
      expect(item.issues).toBeUndefined();
      first = lastStream(path)?.bytes ?? Number.POSITIVE_INFINITY;
      break;
    }
    expect(first).toBeLessThanOrEqual(HANDED_AT_FIRST);
    expect(wholeReads.has(path)).toBe(false);
  });
});
