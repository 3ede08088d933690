import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { expect } from 'vitest';

/**
 * Compares JSONL output with a reviewed golden file. A missing golden is written locally (review
 * it, then commit); under CI (`CI=true`) a missing or different golden fails, never rewrites.
 * `UPDATE_GOLDEN=1` rewrites on purpose.
 */
export async function expectGolden(file: string, items: unknown[]): Promise<void> {
  const text = items.map((i) => JSON.stringify(i)).join('\n') + '\n';
  const ci = process.env.CI === 'true' || process.env.CI === '1';
  if (!existsSync(file) || (process.env.UPDATE_GOLDEN === '1' && !ci)) {
    if (ci) throw new Error(`golden file ${file} is missing; generate it locally and commit it`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    return;
  }
  const want = await readFile(file, 'utf8');
  expect(text).toBe(want);
}
