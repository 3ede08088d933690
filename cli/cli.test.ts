import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main, type CliIO } from './main.js';
import { ingestFiles } from '../ingest/pipeline.js';
import { Warehouse } from '../warehouse/store.js';

const ROOT = resolve(import.meta.dirname, '..');
let dir: string;

function io(): CliIO & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    isTTY: false,
    env: { RCM_DATA_DIR: join(dir, 'var') },
    stdout: (s: string) => void (o.out += s),
    stderr: (s: string) => void (o.err += s),
  };
  return o;
}

async function rcm(...argv: string[]) {
  const x = io();
  const code = await main(argv, x);
  return { code, out: x.out, err: x.err };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-cli-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rcm ingest of a whole release, and a staged one', () => {
  const GPCI = join(ROOT, 'seeds/gpci/GPCI2026.csv');
  const PTP = (p: number) => join(ROOT, `seeds/ncci_ptp_prac/32.2/ccipra-v322r0-f${p}.txt`);

  it('takes a folder alone, exits 1 naming the failed version with nothing published, and publishes the rest with --skip-failed', async () => {
    const rel = join(dir, 'release');
    await rm(rel, { recursive: true, force: true });
    await import('node:fs/promises').then((f) => f.mkdir(rel));
    await writeFile(join(rel, 'GPCI2026.csv'), await readFile(GPCI));
    await writeFile(join(rel, 'ccipra-v322r0-f1.txt'), await readFile(PTP(1)));
    const r = await rcm('ingest', rel, '--format', 'text');
    expect(r.code).toBe(1);
    expect(r.out).toContain('FAILED ncci_ptp_prac 32.2');
    expect(r.out).toMatch(/GPCI2026\.csv: gpci 2026 loaded \(63 rows\); rcm ingest gpci /);
    expect(r.err).toContain('1 of 2 versions failed: nothing published (--skip-failed publishes the others)');
    expect((await rcm('snapshots', 'list', '--json')).out.trim()).toBe('[]');
    const skip = await rcm('ingest', rel, '--skip-failed', '--json');
    expect(skip.code).toBe(0);
    expect(JSON.parse(skip.out)).toMatchObject({ published: true, failed: [{ dataset: 'ncci_ptp_prac' }] });
  });

  it('a dry run names the route families whose answers may change, and none when no key changed', async () => {
    const first = JSON.parse((await rcm('ingest', 'gpci', GPCI, '--dry-run')).out);
    expect(first.answers_changed.map((f: { family: string }) => f.family)).toEqual(expect.arrayContaining(['payment', 'facilities']));
    expect(first.answers_changed.find((f: { family: string }) => f.family === 'payment').routes).toEqual(['GET /v1/codes/{code}/payment']);
    await rcm('ingest', 'gpci', GPCI);
    const again = await rcm('ingest', 'gpci', GPCI, '--version', 'again', '--effective-date', '2026-01-01', '--dry-run', '--format', 'text');
    expect(again.out).toContain('no answer changes (no key added, removed or changed)');
  });

  it('stages files without publishing, lists them, and publishes them when asked', async () => {
    const s = await rcm('ingest', '--stage', 'q3', PTP(1), PTP(2), PTP(3), '--format', 'text');
    expect(s.code).toBe(0);
    expect(s.out).toContain('staged ccipra-v322r0-f1.txt (ncci_ptp_prac) in q3');
    const l = JSON.parse((await rcm('stage', 'list')).out);
    expect(l[0]).toMatchObject({ label: 'q3', versions: [{ dataset: 'ncci_ptp_prac', complete: false }] });
    const p = await rcm('stage', 'publish', 'q3');
    expect(p.code).toBe(1);
    expect(p.err).toContain('q3: 1 version failed: nothing published, the staged files are kept');
    await rcm('ingest', '--stage', 'q3', PTP(4));
    const ok = await rcm('stage', 'publish', 'q3', '--json');
    expect([ok.code, JSON.parse(ok.out).published]).toEqual([0, true]);
    expect((await rcm('stage', 'drop', 'q3')).code).toBe(2);
  });
});

describe('rcm --help', () => {
  const commands = [[], ['datasets'], ['ingest'], ['snapshots'], ['snapshots', 'list'], ['snapshots', 'show'], ['snapshots', 'use'], ['stage'], ['stage', 'list'], ['stage', 'publish'], ['stage', 'drop'], ['diff'], ['serve'], ['start'], ['seed'], ['keys'], ['keys', 'create'], ['keys', 'list'], ['keys', 'revoke'], ['tenants'], ['worker'], ['tenants', 'create'], ['tenants', 'list'], ['state'], ['state', 'migrate'], ['state', 'copy']];
  for (const c of commands) {
    it(`prints help for '${['rcm', ...c].join(' ')}' and exits 0`, async () => {
      const r = await rcm(...c, '--help');
      expect(r.code).toBe(0);
      expect(r.out).toContain('Usage: rcm');
    });
  }

  it('lists every command, and the README names each one', async () => {
    const top = await rcm('--help');
    const names = (out: string) => [...out.split('Commands:\n')[1]!.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]!).filter((n) => n !== 'help');
    expect(names(top.out)).toEqual(['datasets', 'ingest', 'stage', 'snapshots', 'diff', 'seed', 'serve', 'start', 'worker', 'keys', 'tenants', 'remit', 'verify', 'claim', 'backup', 'state']);
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    for (const n of names(top.out)) {
      expect(readme).toContain(`\`rcm ${n}`);
      const sub = await rcm(n, '--help');
      for (const s of sub.out.includes('Commands:') ? names(sub.out) : []) expect(readme.split('\n').some((l) => l.includes(`\`rcm ${n} `) && l.includes(s))).toBe(true);
    }
  });

  it('documents the ingest options the issue names', async () => {
    const r = await rcm('ingest', '--help');
    for (const o of ['--version <label>', '--effective-date <date>', '--dry-run', '--json', '--reject-threshold']) expect(r.out).toContain(o);
  });

  it('exits 2 on a usage error', async () => {
    const r = await rcm('diff', 'gpci', '--format', 'yaml');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Allowed choices are text, json, markdown/);
  });

  it('suggests the dataset id a folder spells otherwise, before reading any file', async () => {
    const r = await rcm('ingest', 'mpfs-rvu', 'no-such-file.csv');
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown dataset 'mpfs-rvu': did you mean mpfs_rvu?");
    const d = await rcm('diff', 'GPCI');
    expect([d.code, d.err.includes("did you mean gpci?")]).toEqual([2, true]);
  });
});

describe('rcm datasets / ingest / snapshots / diff', () => {
  it('lists datasets with formats and key columns', async () => {
    const r = await rcm('datasets', '--json');
    const list = JSON.parse(r.out);
    const rvu = list.find((d: { id: string }) => d.id === 'mpfs_rvu');
    expect(rvu.key).toEqual(['hcpcs', 'modifier']);
    expect(rvu.formats.join(' ')).toMatch(/PPRRVU/);
  });

  it('ingests off a terminal as one JSON summary, then diffs and gates on thresholds (exit 3)', async () => {
    const seed = join(ROOT, 'seeds/gpci/GPCI2026.csv');
    const a = await rcm('ingest', 'gpci', seed);
    expect(a.code).toBe(0);
    const s = JSON.parse(a.out);
    expect(s).toMatchObject({ dataset: 'gpci', version: '2026', rows: 63, rejects: 0, dry_run: false });

    const text = await readFile(seed, 'latin1');
    const edited = join(dir, 'GPCI2026.csv');
    await writeFile(edited, text.replace(/^(10112,AL,00,ALABAMA),[\d.]+/m, '$1,1.234'), 'latin1');
    await rcm('ingest', 'gpci', edited, '--version', '2026b', '--effective-date', '2026-02-01');

    const d = await rcm('diff', 'gpci', '--format', 'json');
    expect(d.code).toBe(0);
    expect(JSON.parse(d.out)).toMatchObject({ from_version: '2026', to_version: '2026b', counts: { changed: 1, unchanged: 62 }, samples: { changed: ['1011200'] } });
    const gate = await rcm('diff', 'gpci', '--fail-on-changed', '1%');
    expect(gate.code).toBe(3);
    expect(gate.out).toContain('FAIL: changed 1.59% > 1%');
    const md = await rcm('diff', 'gpci', '--format', 'markdown', '--fail-on-removed', '0%');
    expect(md.code).toBe(0);
    expect(md.out).toContain('| changed | 1 | 1.59% | `1011200` |');
  });

  it('reports a release over a seed as replacing it, not as removals', async () => {
    const seed = join(ROOT, 'seeds/gpci/GPCI2026.csv');
    await ingestFiles(new Warehouse(join(dir, 'var')), { dataset: 'gpci', files: [seed], seed: true });
    const text = await readFile(seed, 'latin1');
    const release = join(dir, 'GPCI2026.csv');
    await writeFile(release, text.replace(/^10112,AL,00,ALABAMA,.*\r?\n/m, ''), 'latin1');
    const r = await rcm('ingest', 'gpci', release, '--dry-run', '--format', 'text');
    expect(r.code).toBe(0);
    expect(r.out).toContain('gpci: 2026 (seed) -> 2026: replaces the seed, whose rows leave service (no release row is removed)');
    expect(r.out).toMatch(/^ {2}seed only 1 \(1\.59%\)/m);
    expect(r.out).not.toMatch(/^ {2}removed/m);
  });

  it('draws progress (rows, bytes, rows/s) on a terminal and prints a readable summary', async () => {
    const x = io();
    x.isTTY = true;
    const code = await main(['ingest', 'mpfs_rvu', join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv')], x);
    expect(code).toBe(0);
    expect(x.err).toMatch(/mpfs_rvu PPRRVU2025_Oct\.csv: 59 rows, 0 rejects, [\d.]+ KiB\/[\d.]+ KiB \(100%\), [\d,]+ rows\/s/);
    expect(x.out).toMatch(/^mpfs_rvu 2025D \(effective 2025-10-01\): 59 rows, 0 rejected\nanswers that may change \(keys \+59 -0 ~0\): [^\n]*payment \(GET \/v1\/codes\/\{code\}\/payment\)[^\n]*\npublished snapshot \S+\nmpfs_rvu: \(nothing\) -> 2025D\n  added     59/);
    expect(x.out).toMatch(/published snapshot \S+/);
  });

  it('draws each version\'s progress of a release on a terminal, then its report', async () => {
    const rel = join(dir, 'rel');
    await import('node:fs/promises').then((f) => f.mkdir(rel));
    await writeFile(join(rel, 'PPRRVU2025_Oct.csv'), await readFile(join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv')));
    await writeFile(join(rel, 'GPCI2026.csv'), await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv')));
    const x = io();
    x.isTTY = true;
    expect(await main(['ingest', rel], x)).toBe(0);
    expect(x.err).toMatch(/mpfs_rvu PPRRVU2025_Oct\.csv: 59 rows, 0 rejects/);
    expect(x.err).toMatch(/gpci GPCI2026\.csv: 63 rows, 0 rejects/);
    expect(x.err.endsWith('\n')).toBe(true);
    expect(x.out).toMatch(/: 2 versions staged, 0 failed; published snapshot \S+\n/);
  });

  it('prints a one-line error naming file and line, exits 1, and publishes nothing', async () => {
    const r = await rcm('ingest', 'gpci', join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv'));
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^rcm: PPRRVU2025_Oct\.csv, line 1: not a gpci file/);
    expect((await rcm('snapshots', 'list')).out).toContain('no snapshots yet');
  });

  it('lists snapshots, shows one and rolls back with use', async () => {
    await rcm('ingest', 'gpci', join(ROOT, 'seeds/gpci/GPCI2026.csv'));
    await rcm('ingest', 'mpfs_rvu', join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv'));
    const list = JSON.parse((await rcm('snapshots', 'list', '--json')).out);
    expect(list).toHaveLength(2);
    expect(list[1].current).toBe(true);
    const show = JSON.parse((await rcm('snapshots', 'show', list[0].id)).out);
    expect(Object.keys(show.datasets)).toEqual(['gpci']);
    expect((await rcm('snapshots', 'use', list[0].id)).code).toBe(0);
    const after = JSON.parse((await rcm('snapshots', 'list', '--json')).out);
    expect(after[0].current).toBe(true);
    const bad = await rcm('snapshots', 'use', 'nope');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('snapshot nope not found');
  });
});

describe('rcm keys', () => {
  it('creates (secret shown once), lists without secrets, and revokes keys', async () => {
    const none = await rcm('keys', 'create', '--tenant', 'acme');
    expect(none.code).toBe(1);
    expect(none.err).toContain('tenant acme not found');
    const c = await rcm('keys', 'create', '--tenant', 'acme', '--create-tenant', '--type', 'live', '--scopes', 'knowledge,audit', '--json');
    const k = JSON.parse(c.out);
    expect(k.key).toMatch(/^kp_live_[A-Za-z0-9]{32}$/);
    expect(k.scopes).toEqual(['knowledge', 'audit']);
    const list = await rcm('keys', 'list');
    expect(list.out).toContain(k.id);
    expect(list.out).not.toContain(k.key);
    const bad = await rcm('keys', 'create', '--tenant', 'acme', '--scopes', 'root');
    expect(bad.code).toBe(2);
    expect((await rcm('keys', 'revoke', k.id)).out).toContain(`revoked ${k.id}`);
    expect((await rcm('keys', 'list', '--json')).out).toContain('"revoked_at": "2');
    expect((await rcm('keys', 'revoke', 'key_missing')).code).toBe(1);
  });
});
