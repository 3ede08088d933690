import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { MountedSnapshot, sidecarFallbacks, type SnapshotReader } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { RecordFile, RECORDS_SUFFIX } from '../../lib/sidecar/record.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { nppes } from './dataset.js';
import { kindOfHeader, layoutOf } from './layout.js';
import { findNpi } from './queries.js';
import type { OtherNameRow, PracticeLocationRow, ProviderRow } from './schema.js';

const SEED_NAMES = ['npidata_pfile_20050523-20190609.csv', 'pl_pfile_20050523-20190609.csv', 'othername_pfile_20050523-20190609.csv'];
const SEEDS = SEED_NAMES.map((n) => join(REPO_ROOT, 'seeds/nppes', n));
const FIXTURE = join(REPO_ROOT, 'test/fixtures/nppes/npidata_pfile_20050523-20191110.csv');
type Row = ProviderRow & PracticeLocationRow & OtherNameRow;

describe('the NPPES header map', () => {
  it('maps the V.1 header by name, slots included, and a reordered V.2-style header with the renamed sex column', async () => {
    const v1 = (await readFile(SEEDS[0]!, 'utf8')).split('\r\n')[0]!.slice(1, -1).split('","');
    expect(v1).toHaveLength(330);
    const l1 = layoutOf('npidata', v1, 'f');
    expect(l1.taxonomies).toHaveLength(15);
    expect(l1.identifiers).toHaveLength(50);
    expect(l1.at.get('sex')).toBe(v1.indexOf('Provider Gender Code'));
    expect(l1.taxonomies[14]!.get('group')).toBe(v1.indexOf('Healthcare Provider Taxonomy Group_15'));
    const v2 = ['Provider Sex Code', 'NPI', 'ENTITY TYPE CODE', 'NPI Deactivation Date', 'Healthcare Provider Taxonomy Code_2', 'Healthcare Provider Taxonomy Code_1', 'Healthcare Provider Primary Taxonomy Switch_1'];
    const l2 = layoutOf('npidata', v2, 'f');
    expect([l2.at.get('sex'), l2.at.get('npi'), l2.at.get('entity_type')]).toEqual([0, 1, 2]);
    expect(l2.taxonomies.map((m) => m.get('code'))).toEqual([5, 4]);
    expect(l2.at.has('ein')).toBe(false);
  });

  it('tells the three files apart by header, and names a missing required column or a column given twice', () => {
    expect(kindOfHeader(['NPI', 'Provider Secondary Practice Location Address-  Address Line 1'])).toBe('pl');
    expect(kindOfHeader(['NPI', 'Provider Other Organization Name', 'Provider Other Organization Name Type Code'])).toBe('othername');
    expect(kindOfHeader(['HCPCS', 'MOD'])).toBeUndefined();
    expect(() => layoutOf('npidata', ['NPI', 'Entity Type Code'], 'x.csv')).toThrow(/x\.csv, line 1, field NPI Deactivation Date: no 'NPI Deactivation Date' column/);
    expect(() => layoutOf('npidata', ['NPI', 'Entity Type Code', 'NPI Deactivation Date', 'Provider Gender Code', 'Provider Sex Code'], 'x.csv')).toThrow(/'Provider Sex Code' maps to sex/);
  });
});

describe('parsing the seed files (re-typed real registry records)', () => {
  it('reads an individual: names, dates as ISO, taxonomies with license and group, identifiers, addresses', async () => {
    const { rows, rejects } = await parseAll(nppes, SEEDS[0]!);
    expect(rejects).toEqual([]);
    const hiza = rows.find((r) => (r as Row).npi === '1720377294') as ProviderRow;
    expect(hiza).toMatchObject({ entity_type: 'individual', status: 'active', last_name: 'HIZA', first_name: 'ELISE', middle_name: 'AILEEN', credential: 'M.D.', sex: 'F', enumeration_date: '2011-04-05', last_updated: '2018-05-08', ein: null, ein_withheld: null, sole_proprietor: 'Y' });
    expect(hiza.taxonomies).toEqual([
      { code: '207X00000X', license: '2017-01132', license_withheld: null, license_state: 'NC', primary: true, group: '193200000X MULTI-SPECIALTY GROUP' },
      { code: '390200000X', license: null, license_withheld: null, license_state: null, primary: false, group: null },
    ]);
    expect(hiza.identifiers).toEqual([{ identifier: '1720377294', withheld: null, type_code: '05', state: 'NC', issuer: null }]);
    expect(hiza.practice_address).toEqual({ address_1: '111 VICTORIA RD', address_2: null, city: 'ASHEVILLE', state: 'NC', postal_code: '288014811', country_code: 'US', telephone: '828-252-7331', fax: null });
  });

  it('keeps masks out of values: an organization EIN CMS does not release (seeds; SSN/ITIN/EIN masks: the fixture below)', async () => {
    const { rows } = await parseAll(nppes, SEEDS[0]!);
    const bob = rows.find((r) => (r as Row).npi === '1114920071') as ProviderRow;
    expect(bob.identifiers).toHaveLength(5);
    const csp = rows.find((r) => (r as Row).npi === '1568946812') as ProviderRow;
    expect(csp).toMatchObject({ entity_type: 'organization', organization_name: 'CSP ANESTHESIA LLC', ein: null, ein_withheld: 'unavailable', organization_subpart: 'N' });
    expect(csp.authorized_official).toMatchObject({ last_name: 'BARTON', first_name: 'TIMOTHY', title: 'MANAGING MEMBER', credential: 'CRNA' });
    expect(JSON.stringify(rows)).not.toMatch(/\$\$\$|\*\*\*|===|UNAVAIL/);
  });

  it('stores a deactivated NPI as its number, status and date only', async () => {
    const { rows } = await parseAll(nppes, SEEDS[0]!);
    const dead = rows.find((r) => (r as Row).npi === '1003000142') as ProviderRow;
    expect(dead).toMatchObject({ status: 'deactivated', deactivation_date: '2019-05-20', entity_type: null, last_name: null, taxonomies: [], identifiers: [], practice_address: null });
  });

  it('reads practice locations and other names, numbered per NPI in file order', async () => {
    const pl = (await parseAll(nppes, SEEDS[1]!)).rows as PracticeLocationRow[];
    expect(pl.find((r) => r.npi === '1720377294')).toEqual({ npi: '1720377294', ordinal: 1, address_1: '49 JESSE HILL JR DR SE # 307', address_2: null, city: 'ATLANTA', state: 'GA', postal_code: '303033049', country_code: 'US', telephone: '404-778-1567', fax: null, telephone_extension: null });
    const dup = await writeTempFile('pl_pfile_20050523-20190609.csv', `"NPI","Provider Secondary Practice Location Address- Address Line 1"\n"1720377294","A"\n"1568946812","B"\n"1720377294","C"\n`);
    expect(((await parseAll(nppes, dup)).rows as PracticeLocationRow[]).map((r) => [r.address_1, r.ordinal])).toEqual([['A', 1], ['B', 1], ['C', 2]]);
    const on = (await parseAll(nppes, SEEDS[2]!)).rows as OtherNameRow[];
    expect(on).toEqual([{ npi: '1467486373', ordinal: 1, organization_name: 'EMORY SPINE PHYSIATRY OUTPATIENT CENTER', type_code: '5' }]);
  });
});

describe('the ugly fixture (V.2-style header, masks, bad rows)', () => {
  it('reads masks, <UNAVAIL>, a reactivated NPI as active, and rejects bad rows naming line and field', async () => {
    const { rows, rejects } = await parseAll(nppes, FIXTURE);
    const byNpi = new Map((rows as ProviderRow[]).map((r) => [r.npi, r]));
    expect(byNpi.get('1003000001')).toMatchObject({ sex: 'F', taxonomies: [{ code: '207X00000X', license: null, license_withheld: 'itin', primary: true }] });
    expect(byNpi.get('1003000001')!.identifiers.map((i) => i.withheld)).toEqual(['ssn', 'ein']);
    expect(byNpi.get('1003000019')).toMatchObject({ ein_withheld: 'unavailable', parent_organization_tin: null, parent_organization_tin_withheld: 'unavailable' });
    expect(byNpi.get('1003000027')).toMatchObject({ status: 'deactivated', deactivation_date: '2019-05-20' });
    expect(byNpi.get('1003000035')).toMatchObject({ status: 'active', deactivation_date: '2015-03-01', reactivation_date: '2016-04-01' });
    const where = rejects.map((r) => [r.line, r.issues.map((i) => `${i.loc.slice(2).join('.')}: ${i.msg}`)]);
    expect(where).toEqual([
      [6, ["Healthcare Provider Primary Taxonomy Switch_1: primary taxonomy switch is not 'Y', 'N' or 'X'", 'Provider Enumeration Date: not a date in MM/DD/YYYY form', 'Last Update Date: not a date in MM/DD/YYYY form']],
      [7, ["Entity Type Code: entity type is not '1' (individual) or '2' (organization)"]],
      [8, ['NPI: an NPI is 10 digits']],
      [9, [': 3 fields, the header has 21']],
    ]);
  });
});

describe('ingesting NPPES files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-nppes-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the seed set natively into three tables, value for value what the row parser reads; the version is the file end date', async () => {
    const snap = await openTestSnapshot([{ dataset: nppes, files: SEEDS }]);
    try {
      const v = snap.versions('nppes')[0]!;
      expect(v).toMatchObject({ version: '2019-06-09', effective_date: '2019-06-09', tables: { provider: 5, practice_location: 2, other_name: 1 }, rejects: 0 });
      const parsed = (await parseAll(nppes, SEEDS[0]!)).rows as ProviderRow[];
      for (const p of parsed) expect((await findNpi(snap, '2019-06-09', p.npi))!.provider).toEqual(p);
      const hiza = await findNpi(snap, '2019-06-09', '1720377294');
      expect(hiza!.practice_locations.map((l) => l.city)).toEqual(['ATLANTA']);
      expect(await findNpi(snap, '2019-06-09', '1003000118')).toBeNull();
    } finally {
      snap.close();
    }
  });

  it('hands a file with bad rows to the row parser: the rejects name file, line and field; good rows load', async () => {
    const wh = new Warehouse(join(dir, 'wh1'));
    const s = await ingestFiles(wh, { dataset: nppes, files: [FIXTURE], rejectThreshold: 1 });
    expect(s).toMatchObject({ version: '2019-11-10', rows: 4, rejects: 4 });
    const lines = (await readFile(s.rejects_file!.startsWith('/') ? s.rejects_file! : wh.path(s.rejects_file!), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ file: 'npidata_pfile_20050523-20191110.csv', line: 6, issues: [{ loc: ['row', 6, 'Healthcare Provider Primary Taxonomy Switch_1'] }, { loc: ['row', 6, 'Provider Enumeration Date'] }, {}] });
  });

  it('refuses a set without its data file, and files of different ranges', async () => {
    const wh = new Warehouse(join(dir, 'wh2'));
    await expect(ingestFiles(wh, { dataset: nppes, files: [SEEDS[1]!] })).rejects.toThrow(/one npidata_pfile data file .* 0 data files were given/);
    const pl = join(dir, 'pl_pfile_20190603-20190609.csv');
    await copyFile(SEEDS[1]!, pl);
    await expect(ingestFiles(wh, { dataset: nppes, files: [SEEDS[0]!, pl] })).rejects.toThrow(/pl_pfile_20190603-20190609\.csv: files of different releases: this one covers 2019-06-03 to 2019-06-09/);
    expect(await wh.current()).toBeNull();
  });
});

describe('the record file of a version', () => {
  it('is written with the version and left nowhere by a dry run', async () => {
    const wh = new Warehouse(await mkdtemp(join(tmpdir(), 'rcm-nppes-records-')));
    try {
      await ingestFiles(wh, { dataset: nppes.id, files: SEEDS, dryRun: true });
      expect(await readdir(wh.path('tmp'))).toEqual([]);
      expect(existsSync(wh.path('datasets', nppes.id))).toBe(false);
      await ingestFiles(wh, { dataset: nppes.id, files: SEEDS });
      const [v] = (await wh.current())!.datasets.nppes!;
      expect((await readdir(wh.path('datasets', nppes.id))).sort()).toEqual([v!.file.split('/').at(-1), `${v!.file.split('/').at(-1)}${RECORDS_SUFFIX}`]);
      expect(await readdir(wh.path('tmp'))).toEqual([]);
    } finally {
      await rm(wh.dir, { recursive: true, force: true });
    }
  });
});

describe('weekly files: deltas folded into the version before them', () => {
  let dir: string;
  let header: string[];
  let lines: string[];
  /** A weekly set in `dir`: the data file's lines and each reference file's rows (header of the seed). */
  async function weekly(range: string, data: string[], pl: string[] = [], other: string[] = []): Promise<string[]> {
    const d = await mkdtemp(join(dir, 'w-'));
    const files: [string, string[]][] = [['npidata', data], ['pl', pl], ['othername', other]];
    return Promise.all(
      files.map(async ([kind, rows], i) => {
        const f = join(d, `${kind}_pfile_${range}.csv`);
        const head = (await readFile(SEEDS[[0, 1, 2][i]!]!, 'utf8')).split('\r\n')[0]!;
        await writeFile(f, [head, ...rows].join('\r\n') + '\r\n');
        return f;
      }),
    );
  }
  /** A deactivated NPI as the files carry it: its number and deactivation date, every other value empty. */
  const deactivated = (npi: string, date: string) => `"${header.map((h) => (h === 'NPI' ? npi : h === 'NPI Deactivation Date' ? date : '')).join('","')}"`;
  const line = (npi: string) => lines.find((l) => l.startsWith(`"${npi}"`))!;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-nppes-delta-'));
    lines = (await readFile(SEEDS[0]!, 'utf8')).split('\r\n').filter(Boolean);
    header = lines[0]!.slice(1, -1).split('","');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('materialises a weekly file as its base plus upserts: an NPI it carries is replaced with its reference rows, others keep theirs', async () => {
    const wh = new Warehouse(join(dir, 'wh-a'));
    await ingestFiles(wh, { dataset: nppes, files: SEEDS });
    // Elise Hiza's record updated (a later Last Update Date) and her secondary location gone.
    const w1 = await weekly('20190610-20190616', [line('1720377294').replace('"05/08/2018"', '"06/12/2019"')]);
    const s = await ingestFiles(wh, { dataset: nppes, files: w1 });
    expect(s.change).toMatchObject({ from_version: '2019-06-09', to_version: '2019-06-16', delta_of: '2019-06-09', counts: { added: 0, removed: 1, changed: 1 } });
    expect(s.change.summary).toContain('(delta over 2019-06-09: 0 explicit removals)');
    // one practice location row went (1 of 8 keys, above the 5% guard) but no NPI was deactivated: it publishes
    expect(s.report).toMatchObject({ explicit_removals: 0, removed_pct: 0, failed: [] });
    expect(s.rows).toBe(5 + 1 + 1);
    const m = await wh.current();
    expect(m!.datasets.nppes!.map((v) => [v.version, v.delta_of ?? null, v.tables])).toEqual([
      ['2019-06-09', null, { provider: 5, practice_location: 2, other_name: 1 }],
      ['2019-06-16', '2019-06-09', { provider: 5, practice_location: 1, other_name: 1 }],
    ]);
    const snap = await MountedSnapshot.open(wh, m!, { connections: 1, threads: 1 });
    try {
      const hiza = await findNpi(snap, '2019-06-16', '1720377294');
      expect(hiza).toMatchObject({ provider: { last_updated: '2019-06-12', first_name: 'ELISE' }, practice_locations: [] });
      expect((await findNpi(snap, '2019-06-09', '1720377294'))!.practice_locations).toHaveLength(1);
      for (const npi of ['1568946812', '1467486373', '1114920071', '1003000142']) {
        expect(await findNpi(snap, '2019-06-16', npi)).toEqual(await findNpi(snap, '2019-06-09', npi));
      }
      // The record sidecar, the indexed query on the version's own tables and the views answer the
      // same, for a full version and a folded one (the same snapshot outside its data dir reads no
      // sidecar; without `versionTable` too, it asks the views; neither keeps a memo).
      const indexedOnly = Object.create(snap) as SnapshotReader;
      Object.defineProperty(indexedOnly, 'location', { value: undefined });
      indexedOnly.memo = <T>(_key: string, compute: () => Promise<T>) => compute();
      const viewOnly = Object.create(indexedOnly) as SnapshotReader;
      viewOnly.versionTable = undefined;
      const all = snap.all.bind(snap);
      const asked: string[] = [];
      snap.all = ((sql: string, params?: never[]) => (asked.push(sql), all(sql, params))) as typeof snap.all;
      for (const version of ['2019-06-09', '2019-06-16']) {
        expect(existsSync(join(wh.dir, `${m!.datasets.nppes!.find((v) => v.version === version)!.file}${RECORDS_SUFFIX}`)), version).toBe(true);
        const every = (await indexedOnly.all<{ npi: string }>('SELECT npi FROM nppes__provider WHERE version = $1', [version])).map((r) => r.npi);
        expect(every.length).toBeGreaterThan(4);
        for (const npi of [...every, '1999999999', '1234567893']) {
          asked.length = 0;
          const fromRecords = await findNpi(snap, version, npi);
          expect(asked, `${version} ${npi}: no DuckDB query`).toEqual([]);
          const fromIndex = await findNpi(indexedOnly, version, npi);
          expect(fromRecords, `${version} ${npi}`).toEqual(fromIndex);
          expect(fromIndex, `${version} ${npi}`).toEqual(await findNpi(viewOnly, version, npi));
        }
      }
      expect(await findNpi(snap, '2019-06-09', '1568946812')).not.toBeNull();
      // A sidecar damaged after it was written: its blocks do not inflate, and DuckDB answers.
      const sidecar = join(wh.dir, `${m!.datasets.nppes!.find((v) => v.version === '2019-06-09')!.file}${RECORDS_SUFFIX}`);
      const bytes = await readFile(sidecar);
      // Past the header line (the kind and format version): the blocks.
      bytes.fill(0x55, bytes.indexOf(10) + 1, Math.min(bytes.length - 40, 400));
      await writeFile(sidecar, bytes);
      const unmemoised = Object.create(snap) as SnapshotReader;
      unmemoised.memo = <T>(_key: string, compute: () => Promise<T>) => compute();
      const fellBack = (reason: string) => sidecarFallbacks().find((f) => f.dataset === nppes.id && f.sidecar === 'records' && f.reason === reason)?.count ?? 0;
      const before = fellBack('damaged');
      expect(await findNpi(unmemoised, '2019-06-09', '1568946812')).toEqual(await findNpi(indexedOnly, '2019-06-09', '1568946812'));
      // Counted for /metrics (the answer from the index asked no sidecar).
      expect(fellBack('damaged') - before).toBe(1);
      // A sidecar of a format version this build does not read (a newer build's): refused, never
      // read as this build's, counted, and DuckDB answers.
      await writeFile(sidecar, Buffer.concat([Buffer.from('RCMREC1 v9\n'), (await readFile(sidecar)).subarray(11)]));
      const [refusedBefore, missingBefore] = [fellBack('refused'), fellBack('missing')];
      expect(await findNpi(unmemoised, '2019-06-09', '1568946812')).toEqual(await findNpi(indexedOnly, '2019-06-09', '1568946812'));
      expect([fellBack('refused') - refusedBefore, fellBack('missing') - missingBefore]).toEqual([1, 1]);
      await expect(RecordFile.open(sidecar)).rejects.toThrow(`${sidecar}: record file format version 9, this build reads versions 0 to 1`);
      expect(await findNpi(snap, '2019-06-16', '01720377294')).toBeNull();
      // Each version file carries an index on npi for its three tables, and findNpi asks the
      // version's own tables (where DuckDB can use them; through the view over versions it never does).
      const indexed = await snap.all<{ table_name: string; n: number }>('SELECT table_name, count(*)::INTEGER AS n FROM duckdb_indexes() GROUP BY 1 ORDER BY 1');
      expect(indexed).toEqual([{ table_name: 'other_name', n: 2 }, { table_name: 'practice_location', n: 2 }, { table_name: 'provider', n: 2 }]);
      asked.length = 0;
      expect(await findNpi(indexedOnly, '2019-06-09', '1234567893')).toBeNull();
      expect(asked.map((q) => q.match(/FROM ("nppes@\d+"\.main\."\w+") WHERE npi = \$1/)?.[1])).toEqual(['provider', 'practice_location', 'other_name'].map((t) => snap.versionTable(nppes.id, '2019-06-09', t)));
    } finally {
      snap.close();
    }
  });

  it('counts only explicit deactivations for the removal guard, and a delta follows a delta', async () => {
    const wh = new Warehouse(join(dir, 'wh-b'));
    await ingestFiles(wh, { dataset: nppes, files: SEEDS });
    await ingestFiles(wh, { dataset: nppes, files: await weekly('20190610-20190616', [line('1720377294')]) });
    const w2 = await weekly('20190617-20190623', [deactivated('1568946812', '06/18/2019')]);
    // 1 NPI deactivated of 7 base keys: above the 5% guard, refused, nothing published
    await expect(ingestFiles(wh, { dataset: nppes, files: w2 })).rejects.toThrow(/removes 1 of 7 keys of 2019-06-16 .*--allow-removals/);
    expect((await wh.current())!.datasets.nppes!.map((v) => v.version)).toEqual(['2019-06-09', '2019-06-16']);
    const s = await ingestFiles(wh, { dataset: nppes, files: w2, allowRemovals: true });
    expect(s.change).toMatchObject({ delta_of: '2019-06-16', to_version: '2019-06-23' });
    expect(s.report.explicit_removals).toBe(1);
    const m = await wh.current();
    const snap = await MountedSnapshot.open(wh, m!, { connections: 1, threads: 1 });
    try {
      // the deactivated NPI answers with its status and date, and its practice location row is gone with it
      expect(await findNpi(snap, '2019-06-23', '1568946812')).toMatchObject({ provider: { status: 'deactivated', deactivation_date: '2019-06-18', organization_name: null }, practice_locations: [] });
      expect(m!.datasets.nppes!.at(-1)!.tables).toEqual({ provider: 5, practice_location: 0, other_name: 1 });
    } finally {
      snap.close();
    }
  });

  it('refuses a weekly file with no version to fold into, one its base covers, and one after a missed week; nothing is published', async () => {
    const wh = new Warehouse(join(dir, 'wh-c'));
    const w = await weekly('20190610-20190616', [line('1720377294')]);
    await expect(ingestFiles(wh, { dataset: nppes, files: w })).rejects.toThrow(/npidata_pfile_20190610-20190616\.csv: a delta release \(2019-06-10 to 2019-06-16\) folds into the version before it, and no nppes version dated on or before 2019-06-16 is loaded: load a full release first/);
    expect(await wh.current()).toBeNull();
    await ingestFiles(wh, { dataset: nppes, files: SEEDS });
    await expect(ingestFiles(wh, { dataset: nppes, files: await weekly('20190603-20190609', [line('1720377294')]) })).rejects.toThrow(/a delta release \(2019-06-03 to 2019-06-09\) is already covered by version 2019-06-09, a whole release/);
    await expect(ingestFiles(wh, { dataset: nppes, files: await weekly('20190617-20190623', [line('1720377294')]) })).rejects.toThrow(
      /a delta release \(2019-06-17 to 2019-06-23\) follows a release dated 2019-06-16, but the newest nppes version before it is 2019-06-09 \(dated 2019-06-09\): the deltas between are missing/,
    );
    const [data, pl] = await weekly('20190610-20190616', [line('1720377294')]);
    await expect(ingestFiles(wh, { dataset: nppes, files: [data!, pl!] })).rejects.toThrow(/all three files of the week are needed; 2 given/);
    expect((await wh.current())!.datasets.nppes!.map((v) => v.version)).toEqual(['2019-06-09']);
  });
});
