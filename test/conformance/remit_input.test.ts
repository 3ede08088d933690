import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { looksLikeX12 } from '../../lib/x12/sniff.js';
import { remitInputs } from '../../cli/remit_input.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// shared/data/x12-835 and x12-837 (2026-11-27): public sample files with a byte-order mark
// (oopfactory), prose before the ISA (stupidedi case 1), `~` as the element separator (imsweb), no
// ISA (the Blue Cross NC sample starts with ST, imsweb's no_isa_line with GS); each SOURCE.md is not X12.
const present = requireShared('x12-835/835', 'x12-835/ack', 'x12-837', 'x12-835/SOURCE.md');
const at = (rel: string) => join(sharedDataDir(), rel);

/** Every file under `dir` (relative to the shared data), recursively, but the SOURCE.md files. */
function x12Files(dir: string): string[] {
  return readdirSync(at(dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name !== 'SOURCE.md')
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

describe.skipIf(!present)('rcm remit explain tells the shared X12 files from the rest (shared/data/x12-835, x12-837)', () => {
  it('takes every shared 835, acknowledgment and 837 as X12, and no SOURCE.md', () => {
    const files = [...x12Files('x12-835'), ...x12Files('x12-837')];
    expect(files.length).toBeGreaterThan(40);
    expect(files.filter((f) => !looksLikeX12(readFileSync(f)))).toEqual([]);
    expect(looksLikeX12(readFileSync(at('x12-835/SOURCE.md')))).toBe(false);
    expect(looksLikeX12(readFileSync(at('x12-837/SOURCE.md')))).toBe(false);
  });

  it("reads the 835 folder's ten files by name, skipping none", async () => {
    const r = await remitInputs([at('x12-835/835')]);
    expect(r.files.map((f) => f.path)).toEqual(readdirSync(at('x12-835/835')).sort().map((n) => join(at('x12-835/835'), n)));
    expect(r.files).toHaveLength(10);
    expect(r.skipped).toEqual([]);
  });

  it('refuses the top folder, whose only file is its SOURCE.md (its subfolders are not read)', async () => {
    await expect(remitInputs([at('x12-835')])).rejects.toThrow(`${at('x12-835')}: no X12 file in this folder (1 other file skipped)`);
  });
});
