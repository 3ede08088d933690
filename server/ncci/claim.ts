import { lookupMueInDataset, MEDICAID_MUE_IDS, MEDICARE_MUE_IDS } from '../../datasets/_ncci_mue/queries.js';
import type { MedicaidMueRow, MueRow, MueType } from '../../datasets/_ncci_mue/mue.js';
import { aocIndex, lookupAocEdits } from '../../datasets/ncci_aoc/queries.js';
import { ptpCodeSet, ptpPairFinder, type PtpDatasetId } from '../../datasets/_ncci_ptp/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { isKnownCode } from '../codes/service.js';
import type { NcciSources } from './sources.js';
import type { ClaimLookups } from './validate.js';

/** True when any loaded NCCI file names the code (an MUE of any setting, an add-on edit, a PTP edit). */
async function inNcciFiles(snapshot: SnapshotReader, code: string, dos: string, ptp: PtpDatasetId): Promise<boolean> {
  for (const [type, id] of [...Object.entries(MEDICARE_MUE_IDS), ...Object.entries(MEDICAID_MUE_IDS)] as [MueType, string][]) {
    if ((await lookupMueInDataset(snapshot, id, type, code, dos))?.row) return true;
  }
  const aoc = await lookupAocEdits(snapshot, code, dos);
  if (aoc) {
    const idx = await aocIndex(snapshot, aoc.used.version);
    if (idx.byAddon.has(code) || idx.byPrimary.has(code)) return true;
  }
  return snapshot.has(ptp) && (await ptpCodeSet(snapshot, ptp)).has(code);
}

/** The claim checker's lookups over the snapshot, for one payer's NCCI files in one setting. */
export function claimLookups(snapshot: SnapshotReader, sources: NcciSources): ClaimLookups {
  const { ptp, mueType, mue: mueId } = sources;
  const plain = lookupsOf(snapshot, ptp, mueType, mueId);
  // Per-code answers go through the snapshot's memo (bounded by bytes): a scrubber asks the same
  // codes all day, and each answer walks several datasets' version picks. The checker only reads them.
  return {
    known: (code, dos) => snapshot.memo(`claim:known\u0000${ptp}\u0000${code}\u0000${dos}`, () => plain.known(code, dos)),
    ptpDay: plain.ptpDay,
    mue: (code, dos) => snapshot.memo(`claim:mue\u0000${mueId}\u0000${code}\u0000${dos}`, () => plain.mue(code, dos)),
    aoc: (code, dos) => snapshot.memo(`claim:aoc\u0000${code}\u0000${dos}`, () => plain.aoc(code, dos)),
  };
}

function lookupsOf(snapshot: SnapshotReader, ptp: PtpDatasetId, mueType: 'practitioner' | 'hosp-op', mueId: string): ClaimLookups {
  return {
    known: async (code, dos) => (await isKnownCode(snapshot, code)) || inNcciFiles(snapshot, code, dos, ptp),
    ptpDay: (codes, dos) => ptpPairFinder(snapshot, ptp, codes, dos),
    mue: async (code, dos) => {
      const m = await lookupMueInDataset<MueRow | MedicaidMueRow>(snapshot, mueId, mueType, code, dos);
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
      const f = await lookupAocEdits(snapshot, code, dos);
      return f ? { dataset: 'ncci_aoc', version: f.used.version, as_addon: f.as_addon } : null;
    },
  };
}

