import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DuckDBValue } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REMIT_DATASETS } from './datasets.js';
import { DATASETS } from '../../datasets/registry.js';
import { explainFile } from './service.js';
import { Trace } from '../trace.js';
import { MountedSnapshot, type SnapshotReader } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { useSeededDir } from '../../testing/harness.js';
import { remit835 } from '../../testing/x12.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dataDir = useSeededDir('rcm-remit-subset-');
const AT = new Date('2026-08-10T12:00:00Z');

/**
 * 835s that between them reach every kind of read an explanation makes: the sample (bundling,
 * pricing at a locality, a reversal and its correction, PLB); a Medicare claim denied for units
 * (MUE), an add-on without its primary (AOC), coverage (LCDs and articles), with anesthesia, lab and
 * DME lines; a Medicaid claim (the Medicaid NCCI sets); an outpatient hospital claim at a CCN (the
 * OPPS, the facility's geography, the hospital NCCI tables) to Medicare and Medicaid; each also without a location, so the payee NPI's practice ZIP is
 * looked up (NPPES, ZIP to locality).
 */
async function cases(): Promise<{ name: string; bytes: string; where: { ccn?: string; locality?: string } }[]> {
  const sample = await readFile(join(ROOT, 'samples/remittance/medicare.835'), 'utf8');
  const professional = remit835(
    [
      'CLP*PCN010*1*900*50*0*MB*ICN0010*11',
      'SVC*HC:97110*400*0**9',
      'DTM*472*20260701',
      'CAS*CO*151*400',
      'SVC*HC:11001*100*0**1',
      'DTM*472*20260701',
      'CAS*CO*B15*100',
      'SVC*HC:64490*200*0**1',
      'DTM*472*20260701',
      'CAS*CO*50*200',
      'SVC*HC:00100*100*50**1',
      'DTM*472*20260701',
      'CAS*CO*45*50',
      'SVC*HC:80053*50*0**1',
      'DTM*472*20260701',
      'CAS*CO*45*50',
      'SVC*HC:A4216*50*0**1',
      'DTM*472*20260701',
      'CAS*CO*45*50',
    ],
    { bpr: '50', date: '20260803' },
  ).replace('N1*PE*EXAMPLE CLINIC*XX*1234567893', 'N1*PE*EXAMPLE CLINIC*XX*1720377294');
  const medicaid = remit835(['CLP*PCN020*1*500*100*0*MC*ICN0020*11', 'SVC*HC:11042*300*100**1', 'DTM*472*20260715', 'CAS*CO*45*200', 'SVC*HC:97597*100*0**1', 'DTM*472*20260715', 'CAS*CO*97*100', 'SVC*HC:97110*100*0**9', 'DTM*472*20260715', 'CAS*CO*151*100'], {
    payer: 'STATE MEDICAID',
    bpr: '100',
    date: '20260803',
  });
  const hospital = (filing: string) => [
    `CLP*PCN030*1*3400*500*0*${filing}*ICN0030*13`,
    'SVC*HC:70450*1000*250*0350*1',
    'DTM*472*20260115',
    'CAS*CO*45*750',
    'SVC*HC:71046*2000*250*0320*1',
    'DTM*472*20260115',
    'CAS*CO*45*1750',
    'SVC*HC:36415*100*0*0300*1',
    'DTM*472*20260115',
    'CAS*CO*97*100',
    'LQ*HE*M80',
    'SVC*HC:93000*300*0*0730*5',
    'DTM*472*20260115',
    'CAS*CO*151*300',
  ];
  const outpatient = remit835(hospital('MA'), { bpr: '500', date: '20260803' });
  const medicaidOutpatient = remit835(hospital('MC'), { payer: 'STATE MEDICAID', bpr: '500', date: '20260803' });
  return [
    { name: 'the sample at its locality', bytes: sample, where: { locality: '1320201' } },
    { name: 'the sample without a location', bytes: sample, where: {} },
    { name: 'a professional claim denied for units, an add-on and coverage', bytes: professional, where: { locality: '1320201' } },
    { name: 'the same, located by the payee NPI', bytes: professional, where: {} },
    { name: 'a Medicaid claim', bytes: medicaid, where: {} },
    { name: 'an outpatient hospital claim at a CCN, a line bundled and one denied for units', bytes: outpatient, where: { ccn: '330101' } },
    { name: 'the same billed to Medicaid', bytes: medicaidOutpatient, where: { ccn: '330101' } },
  ];
}

const IDS = DATASETS.map((d) => d.id).sort((a, b) => b.length - a.length);

/** The dataset a view (`mpfs_rvu`, `payers__filing_rules`) or a version file's path names, if any. */
const datasetsIn = (text: string): string[] => IDS.filter((id) => new RegExp(`(?:^|[^a-z0-9_])${id}(?:__[a-z0-9_]+)?(?:[^a-z0-9_]|$)|/datasets/${id}/`).test(text));

/** A reader that forwards to `s` and records every dataset asked about or queried. */
function recording(s: SnapshotReader, seen: Set<string>): SnapshotReader {
  const note = (text: string) => datasetsIn(text).forEach((d) => seen.add(d));
  return new Proxy(s, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof v !== 'function') return v;
      if (key === 'has' || key === 'versions' || key === 'versionTable') {
        return (dataset: string, ...rest: unknown[]) => {
          seen.add(dataset);
          return (v as (...a: unknown[]) => unknown).call(target, dataset, ...rest);
        };
      }
      if (key === 'all' || key === 'eachChunk' || key === 'int32Columns') {
        return (sql: string, ...rest: unknown[]) => {
          note(sql);
          return (v as (...a: unknown[]) => unknown).call(target, sql, ...(rest as DuckDBValue[]));
        };
      }
      return v.bind(target);
    },
  });
}

async function explainJson(s: SnapshotReader, c: { bytes: string; where: { ccn?: string; locality?: string } }): Promise<string> {
  const trace = new Trace(s, () => AT);
  const out = await explainFile(s, c.bytes, '2026-08-10', trace, c.where);
  return JSON.stringify({ ...out, reliability: trace.reliability() });
}

describe('rcm remit explain mounts only the datasets an explanation reads', () => {
  let full: MountedSnapshot;
  let subset: MountedSnapshot;
  beforeAll(async () => {
    const wh = new Warehouse(dataDir());
    const manifest = (await wh.current())!;
    full = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1 });
    subset = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1, datasets: REMIT_DATASETS });
  });
  afterAll(() => {
    full?.close();
    subset?.close();
  });

  it('mounts the datasets named and no other', () => {
    expect(Object.keys(subset.manifest.datasets).sort()).toEqual(REMIT_DATASETS.filter((d) => full.has(d)).sort());
    expect(subset.has('rxnorm')).toBe(false);
    expect(full.has('rxnorm')).toBe(true);
    expect(subset.unmounted).toEqual([]);
  });

  it('names registered datasets only', () => {
    const ids = new Set(DATASETS.map((d) => d.id));
    expect(REMIT_DATASETS.filter((d) => !ids.has(d))).toEqual([]);
  });

  it('answers every case exactly as the whole snapshot does, and reads nothing outside the list', async () => {
    const read = new Set<string>();
    for (const c of await cases()) {
      const whole = await explainJson(recording(full, read), c);
      expect(await explainJson(subset, c), c.name).toBe(whole);
    }
    expect([...read].filter((d) => !(REMIT_DATASETS as readonly string[]).includes(d)).sort()).toEqual([]);
    // The cases reach the reads the list is for (a case that stopped reaching one would hide a gap).
    for (const d of ['x12_codes', 'payers', 'mac_jurisdictions', 'ncci_ptp_prac', 'ncci_mue_prac', 'medicaid_ptp_prac', 'ncci_ptp_hosp', 'ncci_mue_hosp', 'medicaid_ptp_hosp', 'medicaid_mue_hosp', 'ncci_aoc', 'mcd_coverage', 'mpfs_rvu', 'gpci', 'opps_addendum_b', 'facilities', 'nppes', 'zip_locality']) expect(read, d).toContain(d);
  });
});
