import { viewName } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { fromStored } from '../_shared/table.js';
import { versionLabel } from '../_shared/versions.js';
import type { Contractor } from '../mcd_documents/dataset.js';
import { macJurisdictions, type MacJurisdictionRow } from './dataset.js';

/** The curated jurisdiction table in force, indexed once per snapshot. */
export interface MacIndex {
  version: string;
  rows: MacJurisdictionRow[];
}

/** The latest curated jurisdiction table; null when mac_jurisdictions is not loaded. */
export async function macIndex(snapshot: SnapshotReader): Promise<MacIndex | null> {
  const version = versionLabel(snapshot, macJurisdictions.id);
  if (!version) return null;
  return snapshot.memo(
    `${macJurisdictions.id}:index:${version}`,
    async () => {
      const rows = await snapshot.all<Record<string, unknown>>(`SELECT * EXCLUDE (version) FROM "${viewName(macJurisdictions.id, macJurisdictions.tables[0]!.name)}" WHERE version = $1 ORDER BY jurisdiction`, [version]);
      return { version, rows: rows.map((r) => fromStored(macJurisdictions.tables[0]!, r) as MacJurisdictionRow) };
    },
    { pin: true },
  );
}

/** A contractor name compared without case, punctuation or its corporate suffix (`, LLC`, `, Inc.`). */
export const contractorKey = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(/\b(llc|inc|corporation|corp|co)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** What a document's contractors say about where it applies. */
export interface DocumentJurisdictions {
  /** Every jurisdiction one of its contractors holds for the contract types it names (A/B or DME). */
  jurisdictions: MacJurisdictionRow[];
  /** True only when exactly one jurisdiction matched and every contractor was placed. */
  resolved: boolean;
  /** Contractor and contract type pairs the curated table does not place (HH+H, an unknown name). */
  unplaced: string[];
}

/**
 * The jurisdictions a listed document may belong to. The listing names the contractor, not its
 * contract: a contractor holding several jurisdictions of the kind (Noridian: JE and JF)
 * matches all of them, unresolved, until an MCD export with contract numbers is loaded.
 */
export function jurisdictionsOf(idx: MacIndex, contractors: Contractor[]): DocumentJurisdictions {
  const found = new Map<string, MacJurisdictionRow>();
  const unplaced: string[] = [];
  for (const c of contractors) {
    const key = contractorKey(c.name);
    for (const type of c.types) {
      const kind = type === 'DME MAC' ? 'dme' : type === 'HHH MAC' ? null : 'ab';
      const rows = kind ? idx.rows.filter((r) => r.kind === kind && contractorKey(r.contractor) === key) : [];
      if (rows.length === 0) unplaced.push(`${c.name} (${type})`);
      for (const r of rows) found.set(r.jurisdiction, r);
    }
  }
  const jurisdictions = [...found.values()];
  return { jurisdictions, resolved: jurisdictions.length === 1 && unplaced.length === 0, unplaced };
}

/** True when a jurisdiction covers `state`, wholly or in part. */
export const coversState = (j: MacJurisdictionRow, state: string): boolean => j.states.includes(state) || state in j.partial_states;

/** The A/B and DME jurisdictions of a state (a partly covered state also names the partial one). */
export function jurisdictionsOfState(idx: MacIndex, state: string): MacJurisdictionRow[] {
  return idx.rows.filter((r) => coversState(r, state));
}

/** A payer name compared from its start without case or punctuation (`Noridian JE Part B` -> `noridian je part b`). */
const nameKey = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

/**
 * The Medicare contractor a remittance's payer is, by its contractor number (835 N1*PR04 or
 * REF*2U) or by the start of its name (N1*PR02, against each jurisdiction's `remittance_names`),
 * else null. A number wins over a name; a name several contractors share (Noridian's JE and JF)
 * still names Medicare, with every jurisdiction it may be.
 */
export function macOfPayer(idx: MacIndex, p: { name: string | null; ids: (string | null)[] }): { jurisdictions: MacJurisdictionRow[]; by: 'contractor_number' | 'name' } | null {
  for (const id of p.ids) {
    const n = id?.trim();
    if (!n) continue;
    const hits = idx.rows.filter((r) => r.contractor_numbers.some((c) => c.number === n));
    if (hits.length) return { jurisdictions: hits, by: 'contractor_number' };
  }
  if (!p.name) return null;
  const key = nameKey(p.name);
  const hits = idx.rows.filter((r) => r.remittance_names.some((x) => key === nameKey(x) || key.startsWith(`${nameKey(x)} `)));
  return hits.length ? { jurisdictions: hits, by: 'name' } : null;
}
