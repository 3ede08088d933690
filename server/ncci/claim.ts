import type { DatasetId } from '../../datasets/registry.js';
import { lookupMueInDataset, MEDICAID_MUE_IDS, MEDICARE_MUE_IDS, mueVersionOn } from '../../datasets/_ncci_mue/queries.js';
import type { MedicaidMueRow, MueRow, MueType } from '../../datasets/_ncci_mue/mue.js';
import { aocEditsOn, aocIndex, lookupAocEdits } from '../../datasets/ncci_aoc/queries.js';
import { ptpCodeSet, ptpPairFinder, type PtpDatasetId } from '../../datasets/_ncci_ptp/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { feeScheduleCodes } from '../codes/service.js';
import type { NcciSources } from './sources.js';
import type { AocFound, ClaimLookups, DayLookups, MueFound } from './validate.js';

/** True when any loaded NCCI file names the code (an MUE of any setting, an add-on edit, a PTP edit). */
async function inNcciFiles(snapshot: SnapshotReader, code: string, dos: string, ptp: PtpDatasetId): Promise<boolean> {
  for (const [type, id] of [...Object.entries(MEDICARE_MUE_IDS), ...Object.entries(MEDICAID_MUE_IDS)] as [MueType, DatasetId][]) {
    if ((await lookupMueInDataset(snapshot, id, type, code, dos))?.row) return true;
  }
  const aoc = await lookupAocEdits(snapshot, code, dos);
  if (aoc) {
    const idx = await aocIndex(snapshot, aoc.used.version);
    if (idx.byAddon.has(code) || idx.byPrimary.has(code)) return true;
  }
  return snapshot.has(ptp) && (await ptpCodeSet(snapshot, ptp)).has(code);
}

/**
 * The codes of `codes` some loaded file knows on `dos`: a fee schedule (one set per snapshot),
 * else an NCCI file of the date's quarter (asked only for a code no fee schedule has, and kept in
 * the snapshot's memo: it walks seven datasets' version picks).
 */
async function knownCodes(snapshot: SnapshotReader, codes: string[], dos: string, ptp: PtpDatasetId): Promise<(code: string) => boolean> {
  const fees = await feeScheduleCodes(snapshot);
  const others = codes.filter((c) => !fees.has(c));
  const inNcci = await Promise.all(others.map((c) => snapshot.memo(`claim:ncci-known\u0000${ptp}\u0000${c}\u0000${dos}`, () => inNcciFiles(snapshot, c, dos, ptp))));
  const ncci = new Set(others.filter((_, i) => inNcci[i]));
  return (code) => fees.has(code) || ncci.has(code);
}

/** MUE answers of one table on one date: the quarter's version, read once per snapshot into a Map. */
async function mueOn(snapshot: SnapshotReader, dataset: DatasetId, dos: string): Promise<DayLookups['mue']> {
  const on = await mueVersionOn<MueRow | MedicaidMueRow>(snapshot, dataset, dos);
  if (!on) return () => null;
  const version = on.choice.version.version;
  return (code): MueFound => {
    const r = on.index.get(code);
    if (!r) return { dataset, version, row: null };
    const mai = 'mue_adj_ind' in r ? (r.mue_adj_ind as 1 | 2 | 3) : null;
    return { dataset, version, row: { mue_value: r.mue_value, mue_adj_ind: mai, mue_adj_ind_label: 'mue_adj_ind_label' in r ? r.mue_adj_ind_label : null, mue_rationale: r.mue_rationale } };
  };
}

/** Add-on code edits on one date, as an add-on, in force that day. */
async function aocOn(snapshot: SnapshotReader, dos: string): Promise<DayLookups['aoc']> {
  const on = await aocEditsOn(snapshot, dos);
  if (!on) return () => null;
  return (code): AocFound => ({ dataset: 'ncci_aoc', version: on.used.version, as_addon: on.asAddon(code) });
}

/** The claim checker's lookups over the snapshot, for one payer's NCCI files in one setting. */
export function claimLookups(snapshot: SnapshotReader, sources: NcciSources): ClaimLookups {
  const { ptp, mue } = sources;
  return {
    async day(codes, dos) {
      const [known, ptpOf, mueOf, aocOf] = await Promise.all([
        knownCodes(snapshot, codes, dos, ptp),
        ptpPairFinder(snapshot, ptp, codes, dos),
        mueOn(snapshot, mue, dos),
        aocOn(snapshot, dos),
      ]);
      return { known, ptp: ptpOf, mue: mueOf, aoc: aocOf };
    },
  };
}
