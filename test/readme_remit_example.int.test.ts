import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIO } from '../cli/main.js';
import { useSeededDir } from '../testing/harness.js';

const ROOT = resolve(import.meta.dirname, '..');
const dataDir = useSeededDir('rcm-readme-remit-');

/** The README's "A remittance explained": its command (in backticks), its text block and its posting-file block. */
async function readmeExample(): Promise<{ command: string; block: string; csv: string }> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = /### A remittance explained\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  const command = /`rcm (remit explain [^`]+)`/.exec(section)?.[1] ?? '';
  const block = /```text\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const csv = /```csv\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return { command, block, csv };
}

/** The sample's README: the whole output of the same command. */
async function sampleOutput(): Promise<string> {
  const text = await readFile(join(ROOT, 'samples/remittance/README.md'), 'utf8');
  return /```text\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
}

/** Runs `rcm <command>` in process from the repository root, over a copy of the seeded data dir. */
async function rcm(command: string): Promise<{ code: number; out: string; err: string }> {
  // A path in the command is relative to the checkout, as a reader runs it there.
  const args = command.split(/\s+/).map((a) => (existsSync(join(ROOT, a)) ? join(ROOT, a) : a));
  const o = { out: '', err: '' };
  const io: CliIO = { isTTY: false, env: { RCM_DATA_DIR: dataDir() }, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
  return { code: await main(args, io), ...o };
}

const ELIDED = /^\[\.\.\. (\d+) lines?: [^\]]+\]$/;

/**
 * The README's block as the runs of output lines it shows, each with the number of lines left out
 * before it (a `[... N lines: what]` line stands for N lines of the output).
 */
function excerptRuns(block: string): { skip: number; lines: string[] }[] {
  const runs: { skip: number; lines: string[] }[] = [{ skip: 0, lines: [] }];
  for (const line of block.replace(/\n$/, '').split('\n')) {
    const m = ELIDED.exec(line);
    if (m) runs.push({ skip: Number(m[1]), lines: [] });
    else runs.at(-1)!.lines.push(line);
  }
  return runs;
}

describe("the README's remittance example", () => {
  it('runs as written on the seeded data and prints exactly what samples/remittance/README.md shows', async () => {
    const { command } = await readmeExample();
    expect(command).toMatch(/^remit explain samples\/remittance\/medicare\.835 /);
    const r = await rcm(command);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    expect(await sampleOutput()).toBe(r.out);
  });

  it('shows in the README an excerpt of that output: its lines in order, each left-out run counted', async () => {
    const { command, block } = await readmeExample();
    const out = (await rcm(command)).out.replace(/\n$/, '').split('\n');
    const runs = excerptRuns(block);
    expect(runs.length).toBeGreaterThan(1);
    let at = 0;
    for (const run of runs) {
      at += run.skip;
      expect(out.slice(at, at + run.lines.length), `README lines after ${at} of the output`).toEqual(run.lines);
      at += run.lines.length;
    }
    // The excerpt ends where the output ends (the totals are shown).
    expect(at).toBe(out.length);
  });

  it('shows rows of the posting file the same command writes with --format posting-csv, the header first', async () => {
    const { command, csv } = await readmeExample();
    // The file column is the path as given on the command line (relative to the checkout).
    const out = (await rcm(`${command} --format posting-csv`)).out.replaceAll(`${ROOT}/`, '').split('\n');
    const shown = csv.replace(/\n$/, '').split('\n');
    expect(shown.length).toBeGreaterThan(2);
    expect(shown[0]).toBe(out[0]);
    for (const row of shown) expect(out, row).toContain(row);
  });
});
