import type { DatasetName, SnapshotReader } from '../../warehouse/snapshot.js';
import { allAsJson } from '../../warehouse/snapshot.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import type { DatasetVersion } from '../../warehouse/manifest.js';
import type { MedicaidMueRow, MueRow, MueType } from './mue.js';
import { pickVersion, type VersionPick } from '../_shared/versions.js';
import { medicaidMueDme } from '../medicaid_mue_dme/dataset.js';
import { medicaidMueHosp } from '../medicaid_mue_hosp/dataset.js';
import { medicaidMuePrac } from '../medicaid_mue_prac/dataset.js';
import { ncciMueDme } from '../ncci_mue_dme/dataset.js';
import { ncciMueHosp } from '../ncci_mue_hosp/dataset.js';
import { ncciMuePrac } from '../ncci_mue_prac/dataset.js';

/** Medicare MUE dataset id per setting (from the members' declarations), in the order answers list them. */
export const MEDICARE_MUE_IDS = {
  practitioner: ncciMuePrac.id,
  'hosp-op': ncciMueHosp.id,
  dme: ncciMueDme.id,
} as const satisfies Record<MueType, string>;

/** Medicaid MUE dataset id per setting (from the members' declarations). */
export const MEDICAID_MUE_IDS = {
  practitioner: medicaidMuePrac.id,
  'hosp-op': medicaidMueHosp.id,
  dme: medicaidMueDme.id,
} as const satisfies Record<MueType, string>;

/** Where an answer came from: the loaded version and whether its quarter covers the date asked. */
export interface VersionUsed {
  dataset: string;
  version: string;
  effective_date: string | null;
  loaded_at: string;
  source_file: string | null;
  covered: boolean;
  warning?: string;
}

/** One setting's lookup: the row (null when the code is not in that table) and its version. */
export interface MueLookup<Row> {
  mue_type: MueType;
  row: Row | null;
  used: VersionUsed;
}

function toUsed(dataset: string, v: DatasetVersion, covered: boolean, warning?: string): VersionUsed {
  return {
    dataset,
    version: v.version,
    effective_date: v.effective_date,
    loaded_at: v.loaded_at,
    source_file: v.source_files[0]?.name ?? null,
    covered,
    ...(warning ? { warning } : {}),
  };
}

/**
 * All rows of one loaded version keyed by code, built once per snapshot (a snapshot never
 * changes), so each later lookup is a Map read. A full CMS MUE table is about 15-20 thousand rows.
 */
export function versionIndex<Row extends { proc_cd: string }>(snapshot: SnapshotReader, dataset: string, version: string): Promise<Map<string, Row>> {
  return snapshot.memo(`mue-index:${dataset}:${version}`, async () => {
    const rows = await allAsJson<Row>(snapshot, `SELECT * EXCLUDE (version) FROM ${quoteIdent(dataset)} WHERE version = $1`, [version]);
    const map = new Map<string, Row>();
    for (const r of rows) map.set(r.proc_cd, r);
    return map;
  }, { pin: true });
}

/**
 * One MUE dataset on a date of service (latest version without one; with `today`, a request's
 * pick by the date rule: today's quarter, else the newest, flagged): the version its quarter
 * picks and that version's rows by code. Undefined when the dataset has no loaded version. A claim
 * asks it once per date and then reads every code from the map.
 */
export async function mueVersionOn<Row extends { proc_cd: string }>(
  snapshot: SnapshotReader,
  dataset: DatasetName,
  dateOfService?: string,
  today?: string,
): Promise<{ choice: VersionPick; index: Map<string, Row> } | undefined> {
  const choice = pickVersion(dataset, snapshot.versions(dataset), 'quarter', dateOfService, today);
  if (!choice) return undefined;
  return { choice, index: await versionIndex<Row>(snapshot, dataset, choice.version.version) };
}

/**
 * Looks up `code` in one MUE dataset for a date of service (latest version without one; with
 * `today`, by the date rule). Undefined when the dataset has no loaded version; `row: null` when
 * the code has no MUE there.
 */
export async function lookupMueInDataset<Row extends { proc_cd: string }>(
  snapshot: SnapshotReader,
  dataset: DatasetName,
  mueType: MueType,
  code: string,
  dateOfService?: string,
  today?: string,
): Promise<MueLookup<Row> | undefined> {
  const on = await mueVersionOn<Row>(snapshot, dataset, dateOfService, today);
  if (!on) return undefined;
  const { choice, index } = on;
  return { mue_type: mueType, row: index.get(code) ?? null, used: toUsed(dataset, choice.version, choice.covered, choice.warning) };
}

/** Per-setting lookups plus what the reliability block needs (versions used, missing datasets, warnings). */
export interface MueFindResult<Row> {
  lookups: MueLookup<Row>[];
  /** dataset id -> version label, for every dataset that answered. */
  versions: Record<string, string>;
  /** Datasets with no loaded version. */
  missing: string[];
  warnings: string[];
  /** True when a dataset is missing or a version did not cover the date of service. */
  degraded: boolean;
}

async function findAcross<Row extends { proc_cd: string }>(
  snapshot: SnapshotReader,
  ids: Record<MueType, string>,
  code: string,
  dateOfService?: string,
  today?: string,
): Promise<MueFindResult<Row>> {
  const entries = Object.entries(ids) as [MueType, DatasetName][];
  const found = await Promise.all(entries.map(([t, id]) => lookupMueInDataset<Row>(snapshot, id, t, code, dateOfService, today)));
  const out: MueFindResult<Row> = { lookups: [], versions: {}, missing: [], warnings: [], degraded: false };
  found.forEach((l, i) => {
    const id = entries[i]![1];
    if (!l) {
      out.missing.push(id);
      out.warnings.push(`${id} is not loaded: no ${entries[i]![0]} MUE can be reported`);
      out.degraded = true;
      return;
    }
    out.lookups.push(l);
    out.versions[id] = l.used.version;
    if (!l.used.covered) {
      out.degraded = true;
      if (l.used.warning) out.warnings.push(l.used.warning);
    }
  });
  return out;
}

/**
 * Medicare MUEs for a code in the practitioner, outpatient-hospital and DME tables, each from the
 * version whose quarter contains the date of service (or the nearest, flagged degraded; with
 * `today` and no date, today's quarter, else the newest, flagged).
 */
export function findMedicareMues(snapshot: SnapshotReader, code: string, dateOfService?: string, today?: string): Promise<MueFindResult<MueRow>> {
  return findAcross<MueRow>(snapshot, MEDICARE_MUE_IDS, code, dateOfService, today);
}

/** A Medicaid MUE row with the Medicare value for the same code and setting beside it. */
export interface MedicaidMueLookup extends MueLookup<MedicaidMueRow> {
  medicare_mue_value: number | null;
  medicare?: VersionUsed;
}

/** Medicaid lookups with the Medicare value per setting. */
export interface MedicaidMueFindResult extends Omit<MueFindResult<MedicaidMueRow>, 'lookups'> {
  lookups: MedicaidMueLookup[];
}

/**
 * Medicaid MUEs for a code per setting, each with the Medicare MUE of the same setting (same
 * date-of-service selection) for side-by-side review. A setting whose Medicare table is not
 * loaded gets `medicare_mue_value: null` and a warning.
 */
export async function findMedicaidMues(
  snapshot: SnapshotReader,
  code: string,
  dateOfService?: string,
  today?: string,
): Promise<MedicaidMueFindResult> {
  const [mcd, mcr] = await Promise.all([
    findAcross<MedicaidMueRow>(snapshot, MEDICAID_MUE_IDS, code, dateOfService, today),
    findMedicareMues(snapshot, code, dateOfService, today),
  ]);
  const lookups: MedicaidMueLookup[] = mcd.lookups.map((l) => {
    const m = mcr.lookups.find((x) => x.mue_type === l.mue_type);
    return { ...l, medicare_mue_value: m?.row?.mue_value ?? null, ...(m ? { medicare: m.used } : {}) };
  });
  const warnings = [...mcd.warnings];
  const versions = { ...mcd.versions };
  let degraded = mcd.degraded;
  // The Medicare side only matters for settings that have a Medicaid row to compare with.
  for (const l of lookups) {
    if (!l.row) continue;
    const id = MEDICARE_MUE_IDS[l.mue_type];
    if (!l.medicare) {
      warnings.push(`${id} is not loaded: medicare_mue_value for ${l.mue_type} is null`);
      continue;
    }
    versions[id] = l.medicare.version;
    if (!l.medicare.covered && l.medicare.warning) {
      warnings.push(l.medicare.warning);
      degraded = true;
    }
  }
  return { lookups, versions, missing: mcd.missing, warnings, degraded };
}
