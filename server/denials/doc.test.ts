import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCI } from '../../testing/shared.js';
import { denialRulesMarkdown } from './doc.js';

const DOC = join(import.meta.dirname, '../../docs/denial-rules.md');

describe('docs/denial-rules.md', () => {
  it('is the denial rules table as the code holds it (UPDATE_GOLDEN=1 rewrites it, never in CI)', async () => {
    const now = denialRulesMarkdown();
    if ((!existsSync(DOC) || process.env.UPDATE_GOLDEN === '1') && !isCI()) await writeFile(DOC, now);
    expect(await readFile(DOC, 'utf8')).toBe(now);
  });
});
