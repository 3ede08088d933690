import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverOptionsOf } from '../cli/commands/serve.js';
import { loadConfig } from '../cli/config.js';
import { DEFAULTS, HEAP_MB_RANGE, heapMbOf, MB } from '../server/defaults.js';
import { silentLogger } from '../server/logger.js';

/**
 * One home for the defaults several floors need (server/defaults.ts): the config's defaults are
 * its values, the CLI passes them to the server, the launcher validates the heap like the config,
 * the README states them, and no source spells one of them again beside its setting.
 */
const ROOT = resolve(import.meta.dirname, '..');

/** Each shared default: its setting's names in code and README, and how a second spelling of its value would look. */
const SETTINGS = [
  { key: 'playgroundKeysPerHour', env: 'RCM_PLAYGROUND_KEYS_PER_HOUR', names: /keysPerHour|KEYS_PER_HOUR/, literal: /\b20\b/ },
  { key: 'idempotencyWindowMs', env: null, names: /idempotencyWindow/i, literal: /\b86_?400_?000\b|\b24 \* 60 \* 60 \* 1000\b|\b24 \* 3600/ },
  { key: 'jobsQueuedPerTenant', env: 'RCM_JOBS_QUEUED_PER_TENANT', names: /maxQueued|QUEUED_PER_TENANT/, literal: /\b100\b/ },
  { key: 'cacheMaxMb', env: 'RCM_CACHE_MAX_MB', names: /cacheMaxBytes|CACHE_MAX_MB|new AnswerCache\(/, literal: /\b64\b/ },
  { key: 'minFreeMb', env: 'RCM_MIN_FREE_MB', names: /minFreeBytes|MIN_FREE_MB/, literal: /\b64\b/ },
  { key: 'authFailuresPerMin', env: 'RCM_AUTH_FAILURES_PER_MIN', names: /authFailuresPerMin|AUTH_FAILURES_PER_MIN/, literal: /\b30\b/ },
  { key: 'heapMb', env: 'RCM_HEAP_MB', names: /heap|HEAP_MB|max-old-space-size/i, literal: /\b1536\b|\b256\b/ },
] as const;

describe('server/defaults.ts is the one home of the shared defaults', () => {
  it('is what cli/config.ts parses for an empty environment', () => {
    const c = loadConfig({});
    for (const s of SETTINGS) if (s.env) expect([s.env, c[s.env as keyof typeof c]]).toEqual([s.env, DEFAULTS[s.key]]);
  });

  it('is what `rcm serve` passes startServer, every one given (the server falls back on nothing)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcm-defaults-'));
    try {
      const o = serverOptionsOf(loadConfig({}), dir, { logger: silentLogger });
      expect(o.cacheMaxBytes).toBe(DEFAULTS.cacheMaxMb * MB);
      expect(o.minFreeBytes).toBe(DEFAULTS.minFreeMb * MB);
      expect(o.playground).toEqual({ enabled: true, keysPerHour: DEFAULTS.playgroundKeysPerHour });
      expect(o.agents?.maxQueuedPerTenant).toBe(DEFAULTS.jobsQueuedPerTenant);
      expect(o.authFailuresPerMin).toBe(DEFAULTS.authFailuresPerMin);
      // A setting given is passed through, not the default.
      const set = serverOptionsOf(loadConfig({ RCM_CACHE_MAX_MB: '8', RCM_MIN_FREE_MB: '0', RCM_PLAYGROUND_KEYS_PER_HOUR: '3', RCM_JOBS_QUEUED_PER_TENANT: '7' }), dir, { logger: silentLogger });
      expect([set.cacheMaxBytes, set.minFreeBytes, set.playground?.keysPerHour, set.agents?.maxQueuedPerTenant]).toEqual([8 * MB, 0, 3, 7]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('validates RCM_HEAP_MB for the launcher exactly as the config does', () => {
    expect(HEAP_MB_RANGE.min).toBeLessThanOrEqual(DEFAULTS.heapMb);
    const samples = ['', ' ', '0', '255', '256', ' 512 ', '1e3', '0x200', '512.5', '1536', '65536', '65537', '-512', 'abc', '1_000', 'Infinity'];
    for (const raw of samples) {
      let byConfig: number | null;
      try {
        byConfig = loadConfig({ RCM_HEAP_MB: raw }).RCM_HEAP_MB;
      } catch {
        byConfig = null;
      }
      expect([raw, heapMbOf(raw)]).toEqual([raw, byConfig]);
    }
    expect(heapMbOf(undefined)).toBeNull();
  });

  it("is the value of each setting's row in the README's configuration table", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    for (const s of SETTINGS) if (s.env) expect(readme).toContain(`| \`${s.env}\` | \`${DEFAULTS[s.key]}\` |`);
  });

  it('is spelled nowhere else: no source line names one of these settings beside its default value', async () => {
    const files: string[] = [];
    const walk = async (d: string): Promise<void> => {
      for (const e of await readdir(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) await walk(p);
        else if (/\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith('.test.ts')) files.push(p);
      }
    };
    for (const d of ['bin', 'cli', 'server', 'ingest', 'datasets', 'warehouse']) await walk(join(ROOT, d));
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const f of files) {
      const rel = relative(ROOT, f);
      // The home itself, and browser assets (the playground page counts nothing server-side).
      if (rel === join('server', 'defaults.ts') || rel.startsWith(join('server', 'pages'))) continue;
      // Code only: comments may explain a default in words.
      const code = (await readFile(f, 'utf8')).replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ''));
      code.split('\n').forEach((line, i) => {
        const text = line.replace(/(^|[^:'"`])\/\/.*$/, '$1');
        for (const s of SETTINGS) if (s.names.test(text) && s.literal.test(text)) found.push(`${rel}:${i + 1} (${s.key}): ${text.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
