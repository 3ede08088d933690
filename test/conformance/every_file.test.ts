import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { ingestRelease, type ReleaseSummary } from '../../ingest/release.js';
import { tempDir } from '../../testing/temp_dirs.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { Warehouse } from '../../warehouse/store.js';

/*
 * Every file a data team finds in ../shared/data, read as one release (`rcm ingest ../shared/data
 * --dry-run`): each either loads with one command, or is refused with the command that would load
 * it, or is named as what it is (documentation, a layout, an API response, a remittance or claim
 * sample) with the command that uses it, or `none`. The table is printed for the reader of CI.
 */
const present = requireShared('README.md', 'mpfs-rvu/PPRRVU2025_Oct.csv');
const shared = sharedDataDir();

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else out.push(relative(shared, p));
  }
  return out.sort();
}

describe.skipIf(!present)('every file of ../shared/data, as one release', () => {
  let s: ReleaseSummary;
  let files: string[];
  beforeAll(async () => {
    const wh = new Warehouse(await tempDir('rcm-every-file-'));
    s = await ingestRelease(wh, shared, { dryRun: true, shownAs: '../shared/data' });
    files = await walk(shared);
    const table = ['| file | dataset | status | rows | command |', '|---|---|---|---:|---|', ...s.files.map((f) => `| ${f.file} | ${f.dataset ?? ''} ${f.version ?? ''} | ${f.status}${f.note ? `: ${f.note.slice(0, 120)}` : ''} | ${f.rows ?? ''} | \`${f.command}\` |`)];
    process.stdout.write(`\n${table.join('\n')}\n\n`);
  }, 300_000);

  it('names every file once', () => {
    expect(s.files.map((f) => f.file).sort()).toEqual(files);
  });

  it('gives each file a dataset with its rows, or the command that uses it, or none, never nothing', () => {
    for (const f of s.files) {
      if (f.status === 'twin' && f.rows === null) {
        // The twin of a version that failed: the command that loads it alone, with what it needs.
        expect(f.command, f.file).toMatch(new RegExp(`^rcm ingest ${f.dataset} .* --version <label> --effective-date <YYYY-MM-DD>$`));
      } else if (f.status === 'loaded' || f.status === 'twin') {
        expect(f.rows, f.file).toBeGreaterThan(0);
        expect(f.command, f.file).toMatch(new RegExp(`^rcm ingest ${f.dataset} `));
      } else if (f.status === 'failed') {
        expect(f.note, f.file).toBeTruthy();
        expect(f.command, f.file).toMatch(/^rcm ingest /);
      } else {
        expect(f.status, f.file).toBe('not_a_source');
        expect(f.note, f.file).toBeTruthy();
        expect(f.command, f.file).toMatch(/^(none|rcm (remit explain|claim check|verify pfrev) '?\.\.\/shared\/data\/)/);
      }
    }
  });

  it('loads every dataset the real files feed, the new CMS ones included', () => {
    const loaded = new Set(s.versions.map((v) => v.dataset));
    for (const id of ['mpfs_rvu', 'gpci', 'locality_county', 'zip_locality', 'anesthesia_cf', 'clfs', 'dmepos', 'dmepos_rural_zip', 'asp_pricing', 'opps_addendum_b', 'opps_addendum_a', 'asc_addendum_aa', 'hcpcs_level2', 'icd10cm', 'ncci_mue_prac', 'x12_codes', 'mcd_documents', 'rxnorm', 'fda_ndc']) {
      expect(loaded, id).toContain(id);
    }
    // The twins are named, not read twice.
    expect(s.files.filter((f) => f.status === 'twin').map((f) => f.file).sort()).toEqual(
      expect.arrayContaining(['clfs/PUF_CLFS_CY2026_Q3V1.txt', 'gpci/25LOCCO.txt', 'gpci/GPCI2025.txt', 'mpfs-rvu/PPRRVU2025_Oct.txt']),
    );
  });

  it('names the remittance, claim and payment-amount samples with the command that reads them', () => {
    const by = (f: string) => s.files.find((x) => x.file === f)!;
    expect(by('x12-835/835/lfh__medicare-part-a.835').command).toBe('rcm remit explain ../shared/data/x12-835/835/lfh__medicare-part-a.835');
    expect(by('x12-837/professional/lfh__demo.837').command).toBe('rcm claim check ../shared/data/x12-837/professional/lfh__demo.837');
    expect(by('mpfs-rvu/PFREV25C.txt').command).toBe('rcm verify pfrev ../shared/data/mpfs-rvu/PFREV25C.txt');
    expect(by('x12-837/status-eligibility/lfh__demo.270').command).toBe('none');
  });

  it('each refused version loads with the command it names, the placeholders filled', async () => {
    const wh = new Warehouse(await tempDir('rcm-every-file-refused-'));
    const tried: string[] = [];
    for (const f of s.failed) {
      if (/missing part/.test(f.reason)) {
        // An NCCI quarter's other parts are not offline: staging is the command, completion is the publisher's.
        expect(f.command).toMatch(/^rcm ingest --stage /);
        continue;
      }
      const placeholders = /--version <label> --effective-date <YYYY-MM-DD>/.test(f.command);
      const r = await ingestFiles(wh, {
        dataset: f.dataset,
        files: f.files.map((x) => join(shared, x)),
        ...(placeholders ? { version: `trial-${tried.length}`, effectiveDate: '2025-01-01' } : {}),
        allowRemovals: /--allow-removals/.test(f.command),
        dryRun: true,
      });
      expect(r.rows, f.command).toBeGreaterThan(0);
      tried.push(f.dataset);
    }
    expect(tried.length).toBeGreaterThan(2);
  }, 300_000);
});
