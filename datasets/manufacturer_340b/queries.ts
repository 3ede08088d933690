import { fromStored, type TableSpec } from '../_shared/table.js';
import { selectVersion } from '../_shared/versions.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { viewName } from '../../warehouse/manifest.js';
import { aliasKey } from '../payers/queries.js';
import { manufacturer340b } from './dataset.js';
import {
  B340_TABLES,
  GRANTEE_TYPES,
  HOSPITAL_TYPES,
  type B340TableName,
  type CarveOutRow,
  type EntityScope,
  type ManufacturerRow,
  type PolicyRow,
  type RebateDrugRow,
  type RebatePilotRow,
  type StateExemptionRow,
  type StateLawRow,
} from './schema.js';

/** All curated 340B knowledge of the version in force, indexed once per snapshot (a few hundred rows). */
export interface Knowledge340b {
  version: string;
  manufacturers: Map<string, ManufacturerRow>;
  /** Normalised name or alias -> manufacturer ids carrying it. */
  names: Map<string, string[]>;
  /** 5-digit labeler code -> manufacturer id (from the manufacturer files only). */
  labelers: Map<string, string>;
  /** Per manufacturer, oldest effective first. */
  policies: Map<string, PolicyRow[]>;
  exemptions: Map<string, StateExemptionRow[]>;
  carveOuts: Map<string, CarveOutRow[]>;
  rebateDrugs: Map<string, RebateDrugRow[]>;
  /** Oldest first. */
  rebatePilot: RebatePilotRow[];
  stateLaws: Map<string, StateLawRow>;
}

const byManufacturer = <R extends { manufacturer_id: string }>(rows: R[], order?: (a: R, b: R) => number): Map<string, R[]> => {
  const m = new Map<string, R[]>();
  for (const r of rows) m.set(r.manufacturer_id, [...(m.get(r.manufacturer_id) ?? []), r]);
  if (order) for (const l of m.values()) l.sort(order);
  return m;
};
const byDate = <R extends { effective_date: string }>(a: R, b: R) => a.effective_date.localeCompare(b.effective_date);

/** The loaded 340B knowledge, or null when `manufacturer_340b` is not loaded. */
export function knowledge340b(snapshot: SnapshotReader): Promise<Knowledge340b | null> {
  const pick = selectVersion(manufacturer340b.id, snapshot.versions(manufacturer340b.id), { rule: 'effective' });
  if (!pick) return Promise.resolve(null);
  const version = pick.version.version;
  return snapshot.memo(
    `${manufacturer340b.id}:knowledge:${version}`,
    async () => {
      const read = async <R>(name: B340TableName): Promise<R[]> => {
        const t: TableSpec = B340_TABLES[name];
        const rows = await snapshot.all<Record<string, unknown>>(`SELECT * EXCLUDE (version) FROM "${viewName(manufacturer340b.id, name)}" WHERE version = $1`, [version]);
        return rows.map((r) => fromStored(t, r)) as R[];
      };
      const manufacturers = await read<ManufacturerRow>('manufacturers');
      const names = new Map<string, string[]>();
      const labelers = new Map<string, string>();
      for (const m of manufacturers) {
        for (const n of [m.manufacturer_id, m.name, ...m.aliases]) {
          const k = aliasKey(n);
          const l = names.get(k) ?? [];
          if (!l.includes(m.manufacturer_id)) names.set(k, [...l, m.manufacturer_id]);
        }
        for (const c of m.labeler_codes) labelers.set(c, m.manufacturer_id);
      }
      const laws = await read<StateLawRow>('state_laws');
      return {
        version,
        manufacturers: new Map(manufacturers.map((m) => [m.manufacturer_id, m])),
        names,
        labelers,
        policies: byManufacturer(await read<PolicyRow>('policies'), byDate),
        exemptions: byManufacturer(await read<StateExemptionRow>('state_exemptions'), byDate),
        carveOuts: byManufacturer(await read<CarveOutRow>('carve_outs'), byDate),
        rebateDrugs: byManufacturer(await read<RebateDrugRow>('rebate_drugs')),
        rebatePilot: (await read<RebatePilotRow>('rebate_pilot')).sort((a, b) => a.date.localeCompare(b.date)),
        stateLaws: new Map(laws.map((l) => [l.state, l])),
      };
    },
    { pin: true },
  );
}

/** Whether a list of entity scopes names `type` (empty lists name every type when `emptyIsAll`). */
export function scopeIncludes(list: EntityScope[], type: string, emptyIsAll: boolean): boolean {
  if (list.length === 0) return emptyIsAll;
  return list.some((s) => s === type || (s === 'hospitals' && (HOSPITAL_TYPES as readonly string[]).includes(type)) || (s === 'grantees' && (GRANTEE_TYPES as readonly string[]).includes(type)));
}
