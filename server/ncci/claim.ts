import { findMueInDataset, MEDICAID_MUE_IDS, MEDICARE_MUE_IDS } from '../../datasets/_ncci_mue/queries.js';
import type { MedicaidMueRow, MueRow } from '../../datasets/_ncci_mue/mue.js';
import { aocIndex, findAocEdits } from '../../datasets/ncci_aoc/queries.js';
import { ptpPairFinder, type PtpDatasetId } from '../../datasets/ncci_ptp_prac/queries.js';
import { quoteIdent, type SnapshotReader } from '../../warehouse/snapshot.js';
import { isKnownCode } from '../payment/service.js';
import type { ClaimLookups } from './validate.js';

/** True when any loaded NCCI file names the code (MUE, add-on, or column 1 of a PTP edit). */
async function inNcciFiles(snapshot: SnapshotReader, code: string, dos: string, ptp: PtpDatasetId): Promise<boolean> {
  for (const id of [...Object.values(MEDICARE_MUE_IDS), ...Object.values(MEDICAID_MUE_IDS)]) {
    const m = await findMueInDataset(snapshot, id, 'practitioner', code, dos);
    if (m?.row) return true;
  }
  const aoc = snapshot.has('ncci_aoc') ? await findAocEdits(snapshot, code, dos) : undefined;
  if (aoc && (await aocIndex(snapshot, aoc.used.version)).byAddon.has(code)) return true;
  if (aoc && (await aocIndex(snapshot, aoc.used.version)).byPrimary.has(code)) return true;
  return snapshot.has(ptp) && (await ptpCodes(snapshot, ptp)).has(code);
}

/** Every code of a PTP table, column 1 or 2, all loaded versions (once per snapshot). */
function ptpCodes(snapshot: SnapshotReader, ptp: PtpDatasetId): Promise<Set<string>> {
  return snapshot.memo(`ptp:codes:${ptp}`, async () => {
    const rows = await snapshot.all<{ c: string }>(`SELECT column1 AS c FROM ${quoteIdent(ptp)} UNION SELECT column2 FROM ${quoteIdent(ptp)}`);
    return new Set(rows.map((r) => r.c));
  }, { pin: true });
}

/** The claim checker's lookups over the snapshot, for one setting and edit set. */
export function claimLookups(snapshot: SnapshotReader, setting: 'prac' | 'hosp', program: 'medicare' | 'medicaid'): ClaimLookups {
  const ptp = `${program === 'medicaid' ? 'medicaid' : 'ncci'}_ptp_${setting}` as PtpDatasetId;
  const mueType = setting === 'prac' ? 'practitioner' : 'hosp-op';
  const mueId = (program === 'medicaid' ? MEDICAID_MUE_IDS : MEDICARE_MUE_IDS)[mueType];
  return {
    known: async (code, dos) => (await isKnownCode(snapshot, code)) || inNcciFiles(snapshot, code, dos, ptp),
    ptpDay: (codes, dos) => ptpPairFinder(snapshot, ptp, codes, dos),
    mue: async (code, dos) => {
      const m = await findMueInDataset<MueRow | MedicaidMueRow>(snapshot, mueId, mueType, code, dos);
      if (!m) return null;
      const r = m.row;
      const mai = r && 'mue_adj_ind' in r ? (r.mue_adj_ind as 1 | 2 | 3) : null;
      return {
        dataset: mueId,
        version: m.used.version,
        row: r ? { mue_value: r.mue_value, mue_adj_ind: mai, mue_adj_ind_label: r && 'mue_adj_ind_label' in r ? r.mue_adj_ind_label : null, mue_rationale: r.mue_rationale } : null,
      };
    },
    aoc: async (code, dos) => {
      const f = await findAocEdits(snapshot, code, dos);
      return f ? { dataset: 'ncci_aoc', version: f.used.version, as_addon: f.as_addon } : null;
    },
  };
}

