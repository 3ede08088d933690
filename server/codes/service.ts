import { findHcpcsForNdc, findNdcsForHcpcs } from '../../datasets/asp_crosswalk/queries.js';
import { knownCodes } from '../../datasets/_shared/codes.js';
import { toNdc11 } from '../../datasets/_shared/ndc.js';
import { findPublishedPackageNdcs } from '../../datasets/fda_ndc/queries.js';
import { findAspPaymentLimits } from '../../datasets/asp_pricing/queries.js';
import { isLabCode } from '../../datasets/clfs/queries.js';
import { STATUS_CODES, findRvuRows } from '../../datasets/mpfs_rvu/queries.js';
import { findOppsRates, isOppsCode } from '../../datasets/opps_addendum_b/queries.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { CodeLookupSchema, CrosswalkEntry } from './schemas.js';
import type { z } from 'zod';
import type { DatasetId } from '../../datasets/registry.js';
import { ownValue } from '../../lib/own.js';

type CodeLookup = Omit<z.output<typeof CodeLookupSchema>, 'reliability'>;

/**
 * A code's descriptor, status and RVU rows across every loaded release (the latest release's
 * unmodified row names it). Throws NotFoundError when no release has the code.
 */
export async function getCodeLookup(snapshot: SnapshotReader, code: string): Promise<{ lookup: CodeLookup; version: string }> {
  const rows = await findRvuRows(snapshot, code);
  if (rows.length === 0) throw new NotFoundError(`code ${code} was not found in any loaded RVU release`);
  const latest = rows.reduce((a, b) => (b.year * 10 + b.quarter >= a.year * 10 + a.quarter ? b : a));
  const head = rows.filter((r) => r.version === latest.version).find((r) => r.modifier === '') ?? latest;
  return {
    version: latest.version,
    lookup: {
      code,
      description: head.description,
      status_code: head.status_code,
      status_description: ownValue(STATUS_CODES, head.status_code) ?? null,
      modifiers: [...new Set(rows.map((r) => r.modifier).filter(Boolean))].sort(),
      rvus: rows.map((r) => ({
        version: r.version,
        rvu_year: r.year,
        rvu_quarter: r.quarter,
        modifier: r.modifier,
        status_code: r.status_code,
        work_rvu: r.work_rvu,
        non_fac_pe_rvu: r.non_fac_pe_rvu,
        facility_pe_rvu: r.facility_pe_rvu,
        mp_rvu: r.mp_rvu,
        non_facility_total: r.non_facility_total,
        facility_total: r.facility_total,
        non_fac_na_indicator: r.non_fac_na_indicator,
        facility_na_indicator: r.facility_na_indicator,
        pctc_indicator: r.pctc_indicator,
        global_days: r.global_days,
        mult_proc: r.mult_proc,
        conv_factor: r.conv_factor,
        conv_factor_qpp: r.conv_factor_qpp,
      })),
    },
  };
}

/**
 * Official CMS crosswalks of a code: HCPCS -> APC (OPPS Addendum B) and HCPCS -> NDC (ASP
 * NDC-HCPCS crosswalk), or NDC -> HCPCS. `used` maps each dataset consulted to the version
 * answered from (for the reliability object). Throws NotFoundError when no loaded dataset knows
 * the code.
 */
export async function getCrosswalks(snapshot: SnapshotReader, code: string): Promise<{ code: string; crosswalks: CrosswalkEntry[]; used: Partial<Record<DatasetId, string>> }> {
  const found = await crosswalksOf(snapshot, code);
  if (!found) throw new NotFoundError(`code ${code} is not in any loaded crosswalk source (OPPS Addendum B, ASP NDC-HCPCS crosswalk)`);
  return found;
}

async function crosswalksOf(snapshot: SnapshotReader, code: string): Promise<{ code: string; crosswalks: CrosswalkEntry[]; used: Partial<Record<DatasetId, string>> } | null> {
  const used: Partial<Record<DatasetId, string>> = {};
  const crosswalks: CrosswalkEntry[] = [];
  const isNdc = /^\d{11}$|-/.test(code);
  if (isNdc) {
    const ndc = toNdc11(code);
    if (!ndc) return null;
    const links = await findHcpcsForNdc(snapshot, ndc);
    if (links.length === 0) return null;
    used.asp_crosswalk = links[0]!.version;
    const published = await publishedForms(snapshot, links.map((l) => l.ndc), used);
    for (const l of links) {
      crosswalks.push({
        target_code: l.hcpcs_code,
        target_system: 'HCPCS',
        confidence: 1,
        crosswalk_type: 'ndc_to_hcpcs',
        description: l.short_descriptor,
        relationship_type: 'billed_under',
        attributes: { package_ndc: published.get(l.ndc) ?? null, ndc11: l.ndc, drug_name: l.drug_name, labeler_name: l.labeler_name, hcpcs_dosage: l.hcpcs_dosage, bill_units: l.bill_units, bill_units_pkg: l.bill_units_pkg },
      });
    }
    return { code: ndc, crosswalks, used };
  }
  const [[opps], ndcs, [asp], inOpps, inLab] = await Promise.all([
    findOppsRates(snapshot, code),
    findNdcsForHcpcs(snapshot, code),
    findAspPaymentLimits(snapshot, code),
    isOppsCode(snapshot, code),
    isLabCode(snapshot, code),
  ]);
  if (!opps && ndcs.length === 0 && !asp && !inOpps && !inLab) return null;
  if (opps) {
    used.opps_addendum_b = opps.version;
    if (opps.apc_code) {
      crosswalks.push({
        target_code: opps.apc_code,
        target_system: 'APC',
        confidence: 1,
        crosswalk_type: 'hcpcs_to_apc',
        description: opps.short_descriptor,
        relationship_type: 'paid_under',
        attributes: { status_indicator: opps.status_indicator, relative_weight: opps.relative_weight, payment_rate: opps.payment_rate, year: opps.year },
      });
    }
  }
  if (ndcs.length > 0) used.asp_crosswalk = ndcs[0]!.version;
  const published = ndcs.length > 0 ? await publishedForms(snapshot, ndcs.map((l) => l.ndc), used) : new Map<string, string>();
  for (const l of ndcs) {
    crosswalks.push({
      target_code: l.ndc,
      target_system: 'NDC',
      confidence: 1,
      crosswalk_type: 'hcpcs_to_ndc',
      description: [l.drug_name, l.labeler_name].filter(Boolean).join(', '),
      relationship_type: 'billed_as',
      attributes: { package_ndc: published.get(l.ndc) ?? null, ndc11: l.ndc, hcpcs_dosage: l.hcpcs_dosage, pkg_size: l.pkg_size, pkg_qty: l.pkg_qty, bill_units: l.bill_units, bill_units_pkg: l.bill_units_pkg },
    });
  }
  return { code, crosswalks, used };
}

/**
 * The labeler's published form of each crosswalk NDC (the ASP file prints 5-4-2), from the FDA
 * directory when it is loaded (recorded in `used`); an NDC FDA does not list has none.
 */
async function publishedForms(snapshot: SnapshotReader, ndc11s: string[], used: Partial<Record<DatasetId, string>>): Promise<Map<string, string>> {
  const found = await findPublishedPackageNdcs(snapshot, ndc11s);
  if (!found) return new Map();
  used.fda_ndc = found.version;
  return found.byNdc11;
}

/** Crosswalk entries grouped by target system. */
export function groupBySystem(entries: CrosswalkEntry[]): Record<string, CrosswalkEntry[]> {
  const out: Record<string, CrosswalkEntry[]> = {};
  for (const e of entries) (out[e.target_system] ??= []).push(e);
  return out;
}

/**
 * Every code of a loaded fee schedule (physician RVUs, OPPS Addendum B, CLFS, DMEPOS) in one set
 * per snapshot: a claim asks it of every line (one await for all of them, where four per code
 * cost a 20-line claim about 10 us).
 */
export function feeScheduleCodes(snapshot: SnapshotReader): Promise<ReadonlySet<string>> {
  return snapshot.memo(
    'codes:fee-schedules',
    async () => {
      const sets = await Promise.all([knownCodes(snapshot, 'mpfs_rvu', 'hcpcs'), knownCodes(snapshot, 'opps_addendum_b'), knownCodes(snapshot, 'clfs'), knownCodes(snapshot, 'dmepos')]);
      return new Set(sets.flatMap((s) => [...s]));
    },
    { pin: true },
  );
}

/** True when a loaded fee schedule (physician RVUs, OPPS Addendum B, CLFS, DMEPOS) has the code. */
export async function isKnownCode(snapshot: SnapshotReader, code: string): Promise<boolean> {
  return (await feeScheduleCodes(snapshot)).has(code);
}
