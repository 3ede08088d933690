import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireShared, sharedDataDir } from './shared.js';

describe('requireShared', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-shared-'));
    await writeFile(join(dir, 'here.csv'), 'x\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('resolves the files under RCM_SHARED_DATA and says they are all present', () => {
    vi.stubEnv('RCM_SHARED_DATA', dir);
    expect(sharedDataDir()).toBe(dir);
    expect(requireShared('here.csv')).toBe(true);
  });

  it('skips locally with a warning naming the missing file', () => {
    vi.stubEnv('RCM_SHARED_DATA', dir);
    vi.stubEnv('CI', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(requireShared('here.csv', 'gone/away.csv')).toBe(false);
    expect(warn.mock.calls[0]![0]).toContain('1 of 2 real files missing');
    expect(warn.mock.calls[0]![0]).toContain('gone/away.csv');
  });

  it('throws under CI=true, naming every missing file, so no suite skips unnoticed', () => {
    vi.stubEnv('RCM_SHARED_DATA', dir);
    vi.stubEnv('CI', 'true');
    expect(() => requireShared('here.csv', 'gone/away.csv', 'gone/too.csv')).toThrow(/cannot skip: 2 of 3 real files missing under .*: gone\/away\.csv, gone\/too\.csv/);
  });
});
