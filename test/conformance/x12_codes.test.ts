import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { x12Codes, type X12CodeRow } from '../../datasets/x12_codes/dataset.js';
import { x12Index, x12StatusOn, type X12Index } from '../../datasets/x12_codes/queries.js';
import { ingestBatch } from '../../ingest/pipeline.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { parseAll, REPO_ROOT } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// shared/data/x12-codes (2026-11-27): the full CARC and RARC lists merged from public copies of the
// X12 pages, text as of 2026-08-17, in two layouts: one column per field, and the list page's
// `Code,Description` cells under loader-format/ (SOURCE.md gives the counts checked below).
const RICH = ['claim-adjustment-reason-codes.csv', 'remittance-advice-remark-codes.csv', 'group-codes.csv'].map((f) => `x12-codes/${f}`);
const LOADER = ['claim-adjustment-reason-codes_2026-08-17.csv', 'remittance-advice-remark-codes_2026-08-17.csv', 'claim-adjustment-group-codes_2026-08-17.csv'].map((f) => `x12-codes/loader-format/${f}`);
const present = requireShared(...RICH, ...LOADER, 'x12-835/835');
const at = (rel: string) => join(sharedDataDir(), rel);

/** CARCs (CAS triplets) and RARCs (LQ*HE, MOA03-07, MIA05 and MIA20-24) a remittance uses. */
function codesOf835(text: string): { carc: Set<string>; rarc: Set<string> } {
  const t = text.replace(/^\uFEFF/, '');
  const isa = t.indexOf('ISA');
  const sep = isa >= 0 ? t[isa + 3]! : '*';
  const carc = new Set<string>();
  const rarc = new Set<string>();
  for (const seg of t.split(/[~\r\n]+/)) {
    const e = seg.trim().split(sep);
    if (e[0] === 'CAS') for (let k = 2; k < e.length; k += 3) e[k] && carc.add(e[k]!);
    else if (e[0] === 'LQ' && e[1] === 'HE' && e[2]) rarc.add(e[2]);
    else if (e[0] === 'MOA') for (const x of e.slice(3, 8)) x && rarc.add(x);
    else if (e[0] === 'MIA') for (const k of [5, 20, 21, 22, 23, 24]) e[k] && rarc.add(e[k]!);
  }
  return { carc, rarc };
}

const byCode = (rows: X12CodeRow[]) => new Map(rows.map((r) => [`${r.list}:${r.code}`, r]));

describe.skipIf(!present)('x12_codes on the full CARC and RARC lists (shared/data/x12-codes)', () => {
  let rich: X12CodeRow[];
  let loader: X12CodeRow[];
  beforeAll(async () => {
    const a = await parseAll(x12Codes, RICH.map(at));
    const b = await parseAll(x12Codes, LOADER.map(at));
    expect(a.rejects).toEqual([]);
    expect(b.rejects).toEqual([]);
    rich = a.rows;
    loader = b.rows;
  });

  it('reads 407 CARCs, 1,216 RARCs and 5 group codes from either layout, nothing rejected', () => {
    for (const rows of [rich, loader]) {
      expect(rows.filter((r) => r.list === 'carc')).toHaveLength(407);
      expect(rows.filter((r) => r.list === 'rarc')).toHaveLength(1216);
      expect(rows.filter((r) => r.list === 'group').map((r) => r.code)).toEqual(['CO', 'CR', 'OA', 'PI', 'PR']);
    }
    // SOURCE.md: 110 CARCs and 74 RARCs carry a stop date; 2 CARCs and 45 RARCs no start date.
    expect(rich.filter((r) => r.list === 'carc' && r.stop_date)).toHaveLength(110);
    expect(rich.filter((r) => r.list === 'rarc' && r.stop_date)).toHaveLength(74);
    expect(rich.filter((r) => r.list === 'carc' && !r.start_date).map((r) => r.code)).toEqual(['307', '308']);
  });

  it('the two layouts give the same description, dates and notes for every code', () => {
    const other = byCode(loader);
    const differ = rich.filter((r) => JSON.stringify(other.get(`${r.list}:${r.code}`)) !== JSON.stringify(r));
    expect(differ.map((r) => `${r.list}:${r.code}`)).toEqual([]);
  });

  it('keeps the full text of CARC 156 and D22 past their "Note:"', () => {
    for (const rows of [rich, loader]) {
      const m = byCode(rows);
      expect(m.get('carc:156')).toMatchObject({ description: 'Flexible spending account payments. Note: Use code 187.', start_date: '2003-09-30', last_modified: '2009-01-25', stop_date: '2009-10-01' });
      const d22 = m.get('carc:D22')!;
      expect(d22.description).toMatch(/^Reimbursement was adjusted for the reasons to be provided in separate correspondence\. \(Note: To be used for Workers' Compensation only\) - Temporary code/);
      expect(d22.description).toMatch(/strategy to use another existing code$/);
      expect(d22).toMatchObject({ start_date: '2008-01-27', stop_date: '2009-01-01' });
    }
  });

  it('every CARC and RARC the sample 835 remittances use is in the lists and in the seed', async () => {
    const dir = at('x12-835/835');
    const used = { carc: new Set<string>(), rarc: new Set<string>() };
    for (const f of readdirSync(dir)) {
      const c = codesOf835(readFileSync(join(dir, f), 'utf8'));
      c.carc.forEach((x) => used.carc.add(x));
      c.rarc.forEach((x) => used.rarc.add(x));
    }
    // Counted with SOURCE.md's script over these files: 16 CARCs, 3 RARCs (MA02, MA92, N14).
    expect(used.carc.size).toBe(16);
    expect([...used.rarc].sort()).toEqual(['MA02', 'MA92', 'N14']);
    const full = byCode(rich);
    const seed = byCode((await parseAll(x12Codes, readdirSync(join(REPO_ROOT, 'seeds/x12_codes')).map((f) => join(REPO_ROOT, 'seeds/x12_codes', f)))).rows);
    for (const [list, codes] of Object.entries(used)) {
      for (const code of codes) {
        expect(full.has(`${list}:${code}`), `${list} ${code} in the full list`).toBe(true);
        // The seed is a byte-exact excerpt of the loader-format rows.
        expect(seed.get(`${list}:${code}`), `${list} ${code} in the seed`).toEqual(full.get(`${list}:${code}`));
      }
    }
  });

  describe('ingested by the pipeline and answered as of a date', () => {
    let snapshot: MountedSnapshot;
    let tmp: string;
    let idx: X12Index;
    beforeAll(async () => {
      tmp = await mkdtemp(join(tmpdir(), 'rcm-x12-conf-'));
      const wh = new Warehouse(join(tmp, 'data'));
      await wh.init();
      const { manifest, staged } = await ingestBatch(wh, [{ dataset: 'x12_codes', files: LOADER.map(at) }], () => new Date('2026-11-27T00:00:00Z'));
      expect(staged[0]!.entry).toMatchObject({ version: '2026-08-17', rows: 1628, rejects: 0 });
      snapshot = await MountedSnapshot.open(wh, manifest!, { connections: 1, threads: 1 });
      idx = await x12Index(snapshot);
    });
    afterAll(async () => {
      snapshot?.close();
      await rm(tmp, { recursive: true, force: true });
    });

    it('the one-column-per-field layout loads too, with --version and --effective-date (its names carry no date)', async () => {
      const wh = new Warehouse(join(tmp, 'rich'));
      await wh.init();
      const { staged } = await ingestBatch(wh, [{ dataset: 'x12_codes', files: RICH.map(at), version: '2026-08-17', effectiveDate: '2026-08-17' }], () => new Date('2026-11-27T00:00:00Z'));
      expect(staged[0]!.entry).toMatchObject({ version: '2026-08-17', rows: 1628, rejects: 0 });
    });

    it('CARC 42 (stopped 2007-06-01) is explained as valid before its stop date and deactivated after it', () => {
      const r = idx.byKey.get('carc:42')!;
      expect(r).toMatchObject({ start_date: '1995-01-01', stop_date: '2007-06-01' });
      expect(x12StatusOn(r, '2007-05-31').status).toBe('active');
      expect(x12StatusOn(r, '2007-06-01')).toEqual({ status: 'deactivated', note: expect.stringContaining('deactivated on 2007-06-01') });
      // RARC N14 (LQ*HE*N14 in pyx12's 835_mult_loops) stopped 2007-10-01.
      expect(x12StatusOn(idx.byKey.get('rarc:N14')!, '2007-09-30').status).toBe('active');
      expect(x12StatusOn(idx.byKey.get('rarc:N14')!, '2026-01-01').status).toBe('deactivated');
      // CARC 251 started 2012-09-30.
      expect(x12StatusOn(idx.byKey.get('carc:251')!, '2012-01-01').status).toBe('not_yet_active');
    });
  });
});
