import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { macJurisdictions } from '../../datasets/mac_jurisdictions/dataset.js';
import { mcdDocuments } from '../../datasets/mcd_documents/dataset.js';
import { findPolicies, policyIndex } from '../../server/policies/service.js';
import { openTestSnapshot, parseAll, REPO_ROOT } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

const REL = 'lcd-ncd/documents_latest.csv';
const present = requireShared(REL);
const FILE = join(sharedDataDir(), REL);

describe.skipIf(!present)('mcd_documents on the real MCD listing (documents_latest.csv, 2025-08-17)', () => {
  it('detects the listing and labels it with the latest updated_on of its first 64 KB (2025-08-06; the latest row is 2025-08-08)', async () => {
    const s = await sampleFile(await toSourceFile(FILE));
    expect(mcdDocuments.detect(s)).toBe(true);
    expect(mcdDocuments.version([s])).toEqual({ label: '2025-08-06', effective_date: '2025-08-06' });
  });

  it('reads all 3,133 rows (972 LCD, 2,161 article versions of 3,121 documents) without a reject', async () => {
    const { rows, rejects } = await parseAll(mcdDocuments, FILE);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(3133);
    expect(rows.filter((r) => r.document_type === 'lcd')).toHaveLength(972);
    expect(new Set(rows.map((r) => r.document_display_id)).size).toBe(3121);
    expect(rows.filter((r) => r.retirement_date !== null)).toHaveLength(94);
    expect(rows.filter((r) => r.contractors.length === 2)).toHaveLength(141);
  });

  describe('placed by the curated MAC jurisdictions', () => {
    let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
    beforeAll(async () => {
      snap = await openTestSnapshot([
        { dataset: mcdDocuments, files: [FILE] },
        { dataset: macJurisdictions, files: [join(REPO_ROOT, 'seeds/mac_jurisdictions/mac_jurisdictions.yaml')] },
      ]);
    });
    afterAll(() => snap?.close());

    it('places every A/B and DME contractor of the listing; only HH+H contracts stay unplaced', async () => {
      expect(snap.versions('mcd_documents').map((v) => v.version)).toEqual(['2025-08-06']);
      const idx = await policyIndex(snap);
      const unplaced = new Set([...idx.medicare.values()].flatMap((d) => d.placement?.unplaced ?? []));
      expect([...unplaced].sort()).toEqual(['CGS Administrators, LLC (HHH MAC)', 'National Government Services, Inc. (HHH MAC)', 'Palmetto GBA (HHH MAC)']);
    });

    it("keeps Ohio's documents: CGS's J15 ones resolved, the DME LCDs and the unplaced HH+H ones", async () => {
      const idx = await policyIndex(snap);
      const { documents, unplaced } = findPolicies(idx, { state: 'OH' }, '2025-08-17');
      expect(documents).toHaveLength(650);
      expect(documents.filter((d) => d.jurisdiction_resolved)).toHaveLength(468);
      // The rest are kept because an HH+H contract of theirs is not placed (CGS, NGS and Palmetto HH+H documents).
      expect(documents.filter((d) => !d.jurisdictions.some((j) => ['J15', 'DME B'].includes(j)))).toHaveLength(39);
      expect(unplaced).toBe(true);
    });
  });
});
