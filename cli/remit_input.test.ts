import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remitInputs } from './remit_input.js';
import { DomainError } from '../warehouse/errors.js';

const ISA = 'ISA*00*          *00*          *ZZ*PAYERID        *ZZ*PROVIDERID     *260803*1200*^*00501*000000001*0*T*:~';

describe('the files rcm remit explain is given', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-remit-input-'));
    await mkdir(join(dir, 'august', 'nested'), { recursive: true });
    await writeFile(join(dir, 'august', 'b.835'), `${ISA}\n`);
    await writeFile(join(dir, 'august', 'a.txt'), 'ST*835*0001~BPR*I*0*C*NON~');
    await writeFile(join(dir, 'august', 'README.md'), '# August remittances\n');
    await writeFile(join(dir, 'august', 'export.csv'), 'claim,paid\nPCN001,80.00\n');
    await writeFile(join(dir, 'august', 'nested', 'c.835'), `${ISA}\n`);
    await mkdir(join(dir, 'empty'));
    await writeFile(join(dir, 'empty', 'notes.txt'), 'nothing here');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("reads a folder's X12 files sorted by name, not its subfolders, and names each other file skipped", async () => {
    const r = await remitInputs([join(dir, 'august')]);
    expect(r.files.map((f) => f.path)).toEqual([join(dir, 'august', 'a.txt'), join(dir, 'august', 'b.835')]);
    expect(r.files[1]!.bytes.toString()).toBe(`${ISA}\n`);
    expect(r.skipped).toEqual([join(dir, 'august', 'README.md'), join(dir, 'august', 'export.csv')]);
  });

  it('keeps the order of the arguments, a file and a folder alike', async () => {
    const r = await remitInputs([join(dir, 'august', 'nested', 'c.835'), join(dir, 'august')]);
    expect(r.files.map((f) => f.path)).toEqual([join(dir, 'august', 'nested', 'c.835'), join(dir, 'august', 'a.txt'), join(dir, 'august', 'b.835')]);
  });

  it('refuses a missing path in one line naming it, without the system error', async () => {
    const missing = join(dir, 'no-such.835');
    const e = await remitInputs([missing]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).code).toBe('not_found');
    expect((e as DomainError).message).toBe(`${missing}: file not found`);
  });

  it('refuses a file given by name that is no X12, naming it', async () => {
    const csv = join(dir, 'august', 'export.csv');
    const e = (await remitInputs([csv]).catch((x: unknown) => x)) as DomainError;
    expect(e.message).toBe(`${csv}: not an X12 file (it does not start with ISA, ST or a known X12 segment)`);
  });

  it('refuses a folder with no X12 file in it', async () => {
    const e = (await remitInputs([join(dir, 'empty')]).catch((x: unknown) => x)) as DomainError;
    expect(e.message).toBe(`${join(dir, 'empty')}: no X12 file in this folder (1 other file skipped)`);
  });
});
