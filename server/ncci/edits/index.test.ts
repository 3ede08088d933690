import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClaimEdit } from './edit.js';
import { CLAIM_EDITS } from './index.js';

const dir = import.meta.dirname;
const isEdit = (v: unknown): v is ClaimEdit => typeof v === 'object' && v !== null && 'id' in v && 'check' in v && 'citation' in v;

describe('the claim edit registry', () => {
  it('registers every edit unit of the folder once, each in the file named by its id', async () => {
    const units = (await readdir(dir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts' && f !== 'edit.ts');
    const exported: ClaimEdit[] = [];
    for (const f of units) {
      const edits = Object.values((await import(/* @vite-ignore */ `./${f.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>).filter(isEdit);
      expect(edits.map((e) => `${e.id}.ts`), `${f} declares the one edit it is named after`).toEqual([f]);
      exported.push(...edits);
    }
    expect(exported.map((e) => e.id).sort()).toEqual(CLAIM_EDITS.map((e) => e.id).sort());
  });

  it('gives every edit a citation (a title and a URL or a document), what it checks and answers, and a test naming it', async () => {
    for (const e of CLAIM_EDITS) {
      expect(e.citation.title.trim(), e.id).not.toBe('');
      expect(e.citation.url ?? e.citation.document ?? '', `${e.id} cites a URL or a document`).not.toBe('');
      if (e.citation.url !== undefined) expect(e.citation.url, e.id).toMatch(/^https:\/\/[a-z0-9.-]+\.gov\//);
      expect(e.applies_to.trim() && e.does.trim(), e.id).toBeTruthy();
      const test = await readFile(join(dir, `${e.id}.test.ts`), 'utf8').catch(() => '');
      expect(test.includes(e.id), `${e.id}.test.ts exists and names ${e.id}`).toBe(true);
    }
  });

  it('lists unknown codes first and add-on codes after the code checks they read', () => {
    expect(CLAIM_EDITS.map((e) => e.id)).toEqual(['unknown_code', 'payable_line', 'ptp', 'mue', 'add_on_code']);
  });
});
