import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lookupDataset } from '../datasets/registry.js';
import { readInputs } from './stage/inputs.js';
import { extractZip } from './zip.js';
import { withDeclaredSize, zipBytes } from '../testing/zips.js';

const ROOT = resolve(import.meta.dirname, '..');
const mcd = lookupDataset('mcd_coverage')!;
/** The smallest RCM_ZIP_MAX_MB (1), so a bomb stays a few megabytes and the test quick. */
const CAP = 1024 * 1024;

/** The error `p` is refused with (fails the test when it is not refused). */
const refusal = (p: Promise<unknown>): Promise<Error> =>
  p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e as Error,
  );

/** Bytes in every file under `dir` (what an extraction wrote to the data dir's tmp). */
async function bytesUnder(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += (await stat(join(e.parentPath, e.name))).size;
  return n;
}

let dir: string;
let tmp: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-zip-bomb-'));
  tmp = join(dir, 'tmp');
  await mkdir(tmp);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const seed = (name: string) => readFile(join(ROOT, 'seeds/mcd_coverage', name));
/** An MCD download as CMS ships it: `<name>.zip` holding `<name>_csv.zip` holding the CSVs. */
async function download(name: string, members: [string, string | Buffer][]): Promise<string> {
  const path = join(dir, `${name}.zip`);
  await writeFile(path, await zipBytes([[`${name}_csv.zip`, await zipBytes(members)]]));
  return path;
}

describe('a zip bomb in a publisher download', () => {
  it('refuses a nested zip whose member declares more than RCM_ZIP_MAX_MB before writing a byte, naming the member', async () => {
    // 8 MB of one letter deflates to a few kilobytes: the inner archive is small, its member is not.
    const file = await download('current_lcd', [['lcd.csv', Buffer.concat([await seed('lcd.csv'), Buffer.alloc(8 * CAP, 0x41)])]]);
    expect((await stat(file)).size).toBeLessThan(64 * 1024);
    const err = await refusal(readInputs(mcd, { files: [file], zipMaxBytes: CAP }, tmp));
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe(`current_lcd.zip/current_lcd_csv.zip/lcd.csv: the archive declares more than ${CAP} bytes unpacked (RCM_ZIP_MAX_MB) by this member; nothing was extracted`);
    expect(await bytesUnder(tmp)).toBe(0);
  });

  it('refuses a member that inflates past the size its header declares, stopping it before a byte is written', async () => {
    const bomb = withDeclaredSize(await zipBytes([['lcd.csv', Buffer.concat([await seed('lcd.csv'), Buffer.alloc(4 * CAP, 0x41)])]]), 'lcd.csv', 2_000);
    const file = join(dir, 'current_lcd.zip');
    await writeFile(file, bomb);
    const err = await refusal(readInputs(mcd, { files: [file], zipMaxBytes: CAP }, tmp));
    expect(err.message).toBe('current_lcd.zip/lcd.csv: inflates to more than the 2000 bytes its header declares: refused, nothing more extracted (a zip bomb or a damaged archive)');
    expect(await bytesUnder(tmp)).toBe(0);
  });

  it('refuses a nested archive whose member lies about its size the same way', async () => {
    const inner = withDeclaredSize(await zipBytes([['lcd.csv', Buffer.concat([await seed('lcd.csv'), Buffer.alloc(4 * CAP, 0x41)])]]), 'lcd.csv', 2_000);
    const file = join(dir, 'current_lcd.zip');
    await writeFile(file, await zipBytes([['current_lcd_csv.zip', inner]]));
    const err = await refusal(readInputs(mcd, { files: [file], zipMaxBytes: CAP }, tmp));
    expect(err.message).toMatch(/^current_lcd\.zip\/current_lcd_csv\.zip\/lcd\.csv: inflates to more than the 2000 bytes its header declares/);
    // The inner archive itself was written to be read (its directory passed); not one byte of its member.
    const members = (await readdir(tmp, { recursive: true })).filter((n) => n.endsWith('lcd.csv'));
    expect(members).toEqual([]);
  });

  it("never writes a member whose first bytes are not the dataset's, and takes the rest", async () => {
    // Under the cap, but no MCD table: judged on its header, skipped, its 900 KB never written.
    const file = await download('current_lcd', [
      ['payload.csv', Buffer.alloc(900 * 1024, 0x41)],
      ['lcd.csv', await seed('lcd.csv')],
    ]);
    const inputs = await readInputs(mcd, { files: [file], zipMaxBytes: 4 * CAP }, tmp);
    expect(inputs.files.map((f) => f.name)).toEqual(['lcd.csv']);
    expect(inputs.skipped).toEqual([{ member: 'current_lcd.zip/current_lcd_csv.zip/payload.csv', reason: expect.stringMatching(/^not a mcd_coverage file: /) }]);
    // Only the taken member is on disk (the nested archive, a container, is gone once read).
    expect(await bytesUnder(tmp)).toBe((await seed('lcd.csv')).length);
  });

  it('skips a zip nested two levels deep without extracting any of it', async () => {
    const deep = await zipBytes([['lcd.csv', Buffer.alloc(512 * 1024, 0x41)]]);
    const file = await download('current_lcd', [
      ['deeper.zip', deep],
      ['lcd.csv', await seed('lcd.csv')],
    ]);
    const out = join(tmp, 'x');
    const r = await extractZip(file, out, { maxBytes: 4 * CAP });
    expect(r.members.map((m) => `${m.archive}/${m.name}`)).toEqual(['current_lcd.zip/current_lcd_csv.zip/lcd.csv']);
    expect(r.skipped).toEqual([{ member: 'current_lcd.zip/current_lcd_csv.zip/deeper.zip', reason: 'zip nested more than one level deep' }]);
    expect(await bytesUnder(out)).toBe((await seed('lcd.csv')).length);
  });

  it('refuses an archive whose members together declare more than the cap, before writing any of them', async () => {
    const half = Buffer.alloc(CAP / 2 + 1, 0x41);
    const file = join(dir, 'two.zip');
    await writeFile(file, await zipBytes([['a.csv', half], ['b.csv', half]]));
    const err = await refusal(extractZip(file, join(tmp, 'y'), { maxBytes: CAP }));
    expect(err.message).toBe(`two.zip/b.csv: the archive declares more than ${CAP} bytes unpacked (RCM_ZIP_MAX_MB) by this member; nothing was extracted`);
    expect(await bytesUnder(tmp)).toBe(0);
  });
});
