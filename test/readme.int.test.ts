import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signature } from '../server/agents/callbacks.js';
import { routeCatalog } from '../server/routes/index.js';
import { freePort } from '../testing/harness.js';

const ROOT = resolve(import.meta.dirname, '..');
const readme = () => readFile(join(ROOT, 'README.md'), 'utf8');
/** The pages under docs/ (design, performance, datasets, API areas, contributing), by path from the root. */
const docPages = async () => (await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
/** The manual and the docs it points to: what a check of moved text reads. */
const manualAndDocs = async () => (await Promise.all(['README.md', ...(await docPages())].map((f) => readFile(join(ROOT, f), 'utf8')))).join('\n');

describe('the README tells the truth', () => {
  it('documents every setting cli/config.ts reads', async () => {
    const config = await readFile(join(ROOT, 'cli/config.ts'), 'utf8');
    const settings = [...config.matchAll(/^\s{2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
    expect(settings.length).toBeGreaterThan(20);
    const text = await readme();
    expect(settings.filter((s) => !text.includes(`\`${s}\``) && !text.includes(`${s}\``) && !text.includes(`\`${s}`))).toEqual([]);
  });

  it("says which seeds are real excerpts, curated or illustrative, as seeds/origins.json does", async () => {
    const { seedOrigins } = await import('../ingest/seed.js');
    const origins = await seedOrigins(join(ROOT, 'seeds'));
    const text = await readme();
    const rowOf = (label: string) => text.split('\n').find((l) => l.startsWith(`| ${label}`)) ?? '';
    for (const [origin, label] of [['real_excerpt', 'real excerpt'], ['curated', 'curated'], ['illustrative', 'illustrative']] as const) {
      const listed = [...rowOf(label).matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]).sort();
      expect(listed, label).toEqual(Object.entries(origins).filter(([, o]) => o === origin).map(([id]) => id).sort());
    }
  });

  it('lists every route of the route table', async () => {
    // The table's paths, and the MCP endpoint served beside it (server/mcp/).
    const paths = [...new Set(routeCatalog().map((r) => r.path)), '/v1/mcp'];
    expect(paths.length).toBeGreaterThan(20);
    const text = await readme();
    // The README's area table shortens `/v1/fee-schedules/opps/{code}` to `/opps/{code}` after the first.
    expect(paths.filter((p) => !text.includes(p) && !text.includes(`/${p.split('/').slice(3).join('/')}\``))).toEqual([]);
  });

  it("the callback receiver example accepts a signed delivery once and refuses a bad signature", async () => {
    const text = await manualAndDocs();
    const m = /A receiver in ten lines of Node:\n\n```js\n([\s\S]*?)```/.exec(text);
    expect(m).not.toBeNull();
    const dir = await mkdtemp(join(tmpdir(), 'rcm-readme-'));
    const file = join(dir, 'receiver.mjs');
    await writeFile(file, m![1]!);
    const port = await freePort();
    const child = spawn(process.execPath, [file], { env: { ...process.env, SECRET: 'whsec_0123456789', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      const body = JSON.stringify({ id: 'evt_1', type: 'agent.job.completed', job_id: 'j1', status: 'completed' });
      const send = (sig: string) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-signature': sig } }).then((r) => r.status);
      let first = 0;
      for (let i = 0; i < 100 && !first; i++) first = await send(signature(body, 'whsec_0123456789')).catch(() => new Promise<number>((r) => setTimeout(() => r(0), 50)));
      expect(first).toBe(204);
      expect(await send(signature(body, 'whsec_0123456789'))).toBe(204);
      expect(await send(signature(body, 'another-secret!'))).toBe(401);
      expect(out.trim().split('\n')).toEqual(['j1 completed']);
    } finally {
      child.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is a manual of at most 500 lines', async () => {
    const lines = (await readme()).split('\n');
    if (lines.at(-1) === '') lines.pop();
    expect(lines.length).toBeLessThanOrEqual(500);
  });

  it('carries no history: no issue or session numbers in the README, docs/ or the changelog', async () => {
    const files = ['README.md', ...(await docPages()), 'CHANGELOG.md'];
    expect(files.length).toBeGreaterThan(3);
    const found: string[] = [];
    for (const f of files) {
      const lines = (await readFile(join(ROOT, f), 'utf8')).split('\n');
      lines.forEach((line, i) => {
        for (const m of line.matchAll(/\b(session|issue) [0-9]+\b/gi)) {
          // "MCP session" is the protocol's word, not a work log.
          if (/\bmcp $/i.test(line.slice(0, m.index))) continue;
          found.push(`${f}:${i + 1}: ${m[0]}`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});

