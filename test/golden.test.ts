import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DATASETS } from '../datasets/registry.js';
import { goldenItems } from '../testing/datasets.js';
import { changedPath, expectGolden } from '../testing/golden.js';

const ROOT = resolve(import.meta.dirname, '..');

describe('golden ingest output per dataset (rows and rejects as JSONL)', () => {
  for (const d of DATASETS) {
    it(`${d.id}: parses its seed and fixture files into the reviewed rows and rejects`, async () => {
      await expectGolden(join(ROOT, 'test/golden', `${d.id}.jsonl`), await goldenItems(d, ROOT));
    });
  }
});

describe('expectGolden', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-golden-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('on a difference writes <id>-changed.jsonl beside the golden and names the first differing line', async () => {
    vi.stubEnv('CI', '');
    const golden = join(dir, 'demo.jsonl');
    await writeFile(golden, '{"a":1}\n{"b":2}\n{"c":3}\n');
    const err = await expectGolden(golden, [{ a: 1 }, { b: 20 }, { c: 3 }]).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(`${golden}: line 2 differs`);
    expect(changedPath(golden)).toBe(join(dir, 'demo-changed.jsonl'));
    expect(await readFile(changedPath(golden), 'utf8')).toBe('{"a":1}\n{"b":20}\n{"c":3}\n');
    // The golden itself is never rewritten by a mismatch.
    expect(await readFile(golden, 'utf8')).toBe('{"a":1}\n{"b":2}\n{"c":3}\n');
  });

  it('names a line the output lacks when it is shorter than the golden', async () => {
    const golden = join(dir, 'short.jsonl');
    await writeFile(golden, '{"a":1}\n{"b":2}\n');
    await expect(expectGolden(golden, [{ a: 1 }])).rejects.toThrow(/line 2 differs \(1 lines now, 2 in the golden\)/);
  });

  it('removes a stale -changed file once the output matches again', async () => {
    const golden = join(dir, 'stale.jsonl');
    await writeFile(golden, '{"a":1}\n');
    await writeFile(changedPath(golden), '{"a":2}\n');
    await expectGolden(golden, [{ a: 1 }]);
    expect(existsSync(changedPath(golden))).toBe(false);
  });

  it('writes a missing golden locally but fails under CI=true without writing', async () => {
    vi.stubEnv('CI', '');
    const local = join(dir, 'new-local.jsonl');
    await expectGolden(local, [{ a: 1 }]);
    expect(await readFile(local, 'utf8')).toBe('{"a":1}\n');
    vi.stubEnv('CI', 'true');
    const ci = join(dir, 'new-ci.jsonl');
    await expect(expectGolden(ci, [{ a: 1 }])).rejects.toThrow(/golden file .*new-ci\.jsonl is missing/);
    expect(existsSync(ci)).toBe(false);
  });
});
