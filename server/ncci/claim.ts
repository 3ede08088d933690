import type { DatasetId } from '../../datasets/registry.js';
import { lookupMueInDataset, MEDICAID_MUE_IDS, MEDICARE_MUE_IDS, mueVersionOn } from '../../datasets/_ncci_mue/queries.js';
import type { MedicaidMueRow, MueRow, MueType } from '../../datasets/_ncci_mue/mue.js';
import { aocEditsOn, aocIndex, lookupAocEdits } from '../../datasets/ncci_aoc/queries.js';
import { ptpCodeSet, ptpPairFinder, type PtpDatasetId } from '../../datasets/_ncci_ptp/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { pickForRequest, requireCovered, selectVersion, type VersionPick, type VersionRule } from '../../datasets/_shared/versions.js';
import { feeScheduleCodes } from '../codes/service.js';
import { knownCodes as datasetCodes } from '../../datasets/_shared/codes.js';
import { findRvuRows } from '../../datasets/mpfs_rvu/queries.js';
import { findOppsRatesIn } from '../../datasets/opps_addendum_b/queries.js';
import type { ClaimLine } from './schemas.js';
import type { NcciSources } from './sources.js';
import type { AocFound, ClaimLookups, DayLookups, FileCoverage, MedicareCodeFacts, MueFound } from './validate.js';

/**
 * The version of a file a day of the claim reads: the one the date's quarter (or year) picks; for
 * the lines of a claim sent without a date (`undated`: they are dated today), the date rule's
 * version without a date: today's, else the newest loaded, flagged.
 */
function pickOn(snapshot: SnapshotReader, dataset: DatasetId, rule: VersionRule, dos: string, undated: boolean): VersionPick | undefined {
  const versions = snapshot.versions(dataset);
  return undated ? pickForRequest(dataset, versions, rule, { today: dos }) : selectVersion(dataset, versions, { rule, date: dos });
}

/**
 * The date rule of a claim (`requireCovered`): a date of service given (the claim's or a line's)
 * that no loaded quarter of the claim's NCCI files (its PTP and MUE tables, the add-on codes)
 * covers is 404, naming the quarter and the nearest loaded version of each. Lines sent without a
 * date are dated `undated` (today) and read today's versions, else the newest, degraded.
 */
export function requireClaimDatesCovered(snapshot: SnapshotReader, sources: NcciSources, lines: readonly ClaimLine[], undated?: string): void {
  for (const date of new Set(lines.map((l) => l.date_of_service))) {
    if (date === undated) continue;
    const when = { date, today: date };
    requireCovered(when, 'quarter', ([sources.ptp, sources.mue, 'ncci_aoc'] as DatasetId[]).map((dataset) => ({ dataset, pick: pickForRequest(dataset, snapshot.versions(dataset), 'quarter', when) })));
  }
}

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

/** MUE answers of one table on one date: the quarter's version (an undated claim's: by the date rule), read once per snapshot into a Map. */
async function mueOn(snapshot: SnapshotReader, dataset: DatasetId, dos: string, undated: boolean): Promise<DayLookups['mue']> {
  const on = await mueVersionOn<MueRow | MedicaidMueRow>(snapshot, dataset, undated ? undefined : dos, undated ? dos : undefined);
  if (!on) return () => null;
  const version = on.choice.version.version;
  return (code): MueFound => {
    const r = on.index.get(code);
    if (!r) return { dataset, version, row: null };
    const mai = 'mue_adj_ind' in r ? (r.mue_adj_ind as 1 | 2 | 3) : null;
    return { dataset, version, row: { mue_value: r.mue_value, mue_adj_ind: mai, mue_adj_ind_label: 'mue_adj_ind_label' in r ? r.mue_adj_ind_label : null, mue_rationale: r.mue_rationale } };
  };
}

/** Add-on code edits on one date, as an add-on, in force that day (an undated claim's: the active edits of the date rule's version). */
async function aocOn(snapshot: SnapshotReader, dos: string, undated: boolean): Promise<DayLookups['aoc']> {
  const on = await aocEditsOn(snapshot, undated ? undefined : dos, undated ? dos : undefined);
  if (!on) return () => null;
  return (code): AocFound => ({ dataset: 'ncci_aoc', version: on.used.version, as_addon: on.asAddon(code) });
}

/**
 * Which version of each NCCI file the claim's checks read on `dos`, and whether its quarter covers
 * the date: the same `selectVersion` pick the PTP, MUE and add-on routes make, so a claim line and
 * the single-code route agree on `degraded` for the same date.
 */
function coverageOn(snapshot: SnapshotReader, datasets: DatasetId[], dos: string, undated: boolean): FileCoverage[] {
  return datasets.flatMap((dataset) => coverageOf(dataset, pickOn(snapshot, dataset, 'quarter', dos, undated)));
}

/** A file's pick as the claim answer reports it (nothing when no version is loaded). */
const coverageOf = (dataset: DatasetId, pick: VersionPick | undefined): FileCoverage[] =>
  pick ? [{ dataset, version: pick.version.version, covered: pick.covered, ...(pick.warning ? { warning: pick.warning } : {}) }] : [];

/**
 * What the fee schedules say about the day's codes (Medicare claims): the RVU release of the date's
 * year and each code's unmodified row there, the Addendum B of the date's year (both by the `year`
 * rule: another year's release answers flagged), CLFS, DMEPOS and ASP membership. Read once per
 * date from the snapshot's in-memory indexes, then each code is answered from a Map.
 */
async function medicareOn(snapshot: SnapshotReader, codes: string[], dos: string, undated: boolean): Promise<{ facts: (code: string) => MedicareCodeFacts; coverage: FileCoverage[] }> {
  const rvuVersions = snapshot.versions('mpfs_rvu');
  const pick = pickOn(snapshot, 'mpfs_rvu', 'year', dos, undated);
  const effectiveOf = new Map(rvuVersions.map((v) => [v.version, v.effective_date ?? '']));
  const oppsPick = pickOn(snapshot, 'opps_addendum_b', 'year', dos, undated);
  const oppsVersion = oppsPick?.version.version;
  const [clfs, dmepos, asp, rows, opps] = await Promise.all([
    datasetCodes(snapshot, 'clfs'),
    datasetCodes(snapshot, 'dmepos'),
    datasetCodes(snapshot, 'asp_pricing'),
    Promise.all(codes.map((c) => findRvuRows(snapshot, c))),
    Promise.all(codes.map(async (c) => (oppsVersion ? (await findOppsRatesIn(snapshot, oppsVersion, c))[0] : undefined))),
  ]);
  const facts = new Map<string, MedicareCodeFacts>();
  codes.forEach((code, i) => {
    const all = rows[i]!;
    const inForce = pick ? all.filter((r) => r.version === pick.version.version) : [];
    const row = inForce.find((r) => r.modifier === '');
    let outside: MedicareCodeFacts['outside_release'] = null;
    if (pick && inForce.length === 0 && all.length > 0) {
      const here = pick.version.effective_date ?? '';
      const earlier = all.filter((r) => (effectiveOf.get(r.version) ?? '') < here).at(-1);
      const later = all.find((r) => (effectiveOf.get(r.version) ?? '') > here);
      if (earlier) outside = { state: 'deleted', other_version: earlier.version };
      else if (later) outside = { state: 'not_yet_effective', other_version: later.version };
    }
    const o = opps[i];
    facts.set(code, {
      rvu_version: pick?.version.version ?? null,
      status_code: row?.status_code ?? null,
      outside_release: outside,
      opps: o ? { version: o.version, status_indicator: o.status_indicator.trim(), payment_rate: o.payment_rate } : null,
      clfs: clfs.has(code),
      dmepos: dmepos.has(code),
      asp: asp.has(code),
    });
  });
  const coverage = [...coverageOf('mpfs_rvu', pick), ...coverageOf('opps_addendum_b', oppsPick)];
  return { facts: (code) => facts.get(code)!, coverage };
}

/**
 * The claim checker's lookups over the snapshot, for one payer's NCCI files in one setting;
 * `medicare` adds what the fee schedules say about each code (a Medicare claim); `undated`, the
 * date (today) given to the lines sent without one, whose versions the date rule picks.
 */
export function claimLookups(snapshot: SnapshotReader, sources: NcciSources, opts: { medicare?: boolean; undated?: string } = {}): ClaimLookups {
  const { ptp, mue } = sources;
  return {
    async day(codes, dos) {
      const undated = dos === opts.undated;
      const [known, ptpOf, mueOf, aocOf, medicare] = await Promise.all([
        knownCodes(snapshot, codes, dos, ptp),
        ptpPairFinder(snapshot, ptp, codes, dos, pickOn(snapshot, ptp, 'quarter', dos, undated)),
        mueOn(snapshot, mue, dos, undated),
        aocOn(snapshot, dos, undated),
        opts.medicare ? medicareOn(snapshot, codes, dos, undated) : undefined,
      ]);
      const coverage = [...coverageOn(snapshot, [ptp, mue, 'ncci_aoc'], dos, undated), ...(medicare?.coverage ?? [])];
      return { known, ptp: ptpOf, mue: mueOf, aoc: aocOf, coverage, ...(medicare ? { medicare: medicare.facts } : {}) };
    },
  };
}
