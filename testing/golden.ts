import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { expect } from 'vitest';
import { toJsonl } from './datasets.js';
import { isCI } from './shared.js';

/** Where a golden's differing output is written for review: `<id>.jsonl` -> `<id>-changed.jsonl`. */
export function changedPath(golden: string): string {
  return golden.replace(/(\.jsonl)?$/, '-changed.jsonl');
}

/**
 * Compares JSONL output with a reviewed golden file. A missing golden is written locally (review
 * it, then commit); under CI (`CI=true`) it fails, never writes. On a difference the output is
 * written beside the golden as `<id>-changed.jsonl` (diff the two; copy it over the golden once
 * reviewed) and the failure names the first differing line; a match removes a stale
 * `-changed` file. `UPDATE_GOLDEN=1` rewrites on purpose, outside CI only.
 */
export async function expectGolden(file: string, items: unknown[]): Promise<void> {
  const lines = items.map((i) => JSON.stringify(i));
  const text = toJsonl(items);
  const changed = changedPath(file);
  if (!existsSync(file) || (process.env.UPDATE_GOLDEN === '1' && !isCI())) {
    if (isCI()) throw new Error(`golden file ${file} is missing; generate it locally and commit it`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    await rm(changed, { force: true });
    return;
  }
  const want = await readFile(file, 'utf8');
  if (text === want) {
    await rm(changed, { force: true });
    return;
  }
  await writeFile(changed, text);
  const wantLines = want.replace(/\n$/, '').split('\n');
  const at = Math.max(lines.length, wantLines.length);
  for (let n = 0; n < at; n++) {
    expect(lines[n], `${file}: line ${n + 1} differs (${lines.length} lines now, ${wantLines.length} in the golden); the whole output is in ${changed}`).toBe(wantLines[n]);
  }
  // Same lines, different bytes (line ends, a missing final newline): still a difference.
  expect(text, `${file}: same lines, other bytes; the output is in ${changed}`).toBe(want);
}
