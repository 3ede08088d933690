import type { z } from 'zod';
import { versionForRequest } from '../../datasets/_shared/versions.js';
import type { ClfsRow } from '../../datasets/clfs/dataset.js';
import type { DmeposRow } from '../../datasets/dmepos/dataset.js';
import { oppsAddendumA } from '../../datasets/opps_addendum_a/dataset.js';
import { findApcRowsIn, oppsApcVersionForYear } from '../../datasets/opps_addendum_a/queries.js';
import type { OppsAddendumBRow } from '../../datasets/opps_addendum_b/dataset.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import type { DmeRowSchema, LabRowSchema, OppsRowSchema } from './schemas.js';

/**
 * The release a fee-schedule lookup reads, by the one date rule (`versionForRequest`): the newest
 * release of the `year` asked (or of the year of `date_of_service`), 404 naming that year and the
 * nearest loaded release when none is loaded; without either, today's year's, else the newest
 * loaded, degraded with a warning. Recorded on the trace; undefined when the dataset is not loaded.
 */
export function feeScheduleVersion(
  snapshot: SnapshotReader,
  dataset: 'opps_addendum_b' | 'opps_addendum_a' | 'clfs' | 'dmepos',
  query: { year?: number; date_of_service?: string },
  today: string,
  trace: Trace,
): string | undefined {
  const pick = versionForRequest(dataset, snapshot.versions(dataset), 'year', { year: query.year, date: query.date_of_service, today });
  trace.use(dataset, pick?.version.version);
  if (pick && !pick.covered && pick.warning) trace.fallback(pick.warning);
  return pick?.version.version;
}

/** A DMEPOS row as the spec's DME row. */
export function toDmeRow(x: DmeposRow): z.output<typeof DmeRowSchema> {
  return {
    hcpcs_code: x.hcpcs_code,
    state: x.state,
    year: x.year,
    category: x.category,
    jurisdiction: x.jurisdiction,
    modifier: x.modifier,
    modifier2: x.modifier2,
    short_descriptor: x.short_descriptor,
    ceiling: x.ceiling,
    floor: x.floor,
    non_rural_rate: x.non_rural_rate,
    rural_rate: x.rural_rate,
  };
}

/** What `GET /v1/fee-schedules/opps/{code}` says of the code's APC: its Addendum A row, or why there is none. */
export type ApcLink = Pick<z.output<typeof OppsRowSchema>, 'apc_group' | 'apc_group_note'>;

/**
 * The Addendum A row of an Addendum B row's APC, from the Addendum A release of the same calendar
 * year (`row.year`) only: an APC's title, weight and rate are that year's, so when no Addendum A of
 * the year is loaded the answer says which year is missing (a note and a warning), never another
 * year's. A code without an APC (packaged, not paid under OPPS) has no group and no note.
 */
export async function apcLinkOf(snapshot: SnapshotReader, row: Pick<OppsAddendumBRow, 'apc_code' | 'year'>, trace: Trace): Promise<ApcLink> {
  if (!row.apc_code) return { apc_group: null, apc_group_note: null };
  const version = oppsApcVersionForYear(snapshot, row.year);
  let note: string;
  if (!version) {
    const loaded = [...new Set(snapshot.versions(oppsAddendumA.id).map((v) => v.effective_date?.slice(0, 4) ?? v.version))];
    note = `no OPPS Addendum A of CY${row.year} is loaded, so APC ${row.apc_code}'s group title, weight and rate are not shown (${loaded.length ? `loaded: CY${loaded.join(', CY')}; another year's is not used` : 'opps_addendum_a is not loaded'})`;
  } else {
    trace.use(oppsAddendumA.id, version);
    const [a] = await findApcRowsIn(snapshot, version, row.apc_code);
    if (a) return { apc_group: { apc: a.apc, group_title: a.group_title, status_indicator: a.status_indicator, relative_weight: a.relative_weight, payment_rate: a.payment_rate, year: a.year, version }, apc_group_note: null };
    note = `APC ${row.apc_code} is not in the CY${row.year} Addendum A release ${version}${snapshot.versions(oppsAddendumA.id).find((v) => v.version === version)?.seed ? ' (a seed excerpt)' : ''}`;
  }
  trace.warn(note);
  return { apc_group: null, apc_group_note: note };
}

/** An Addendum B row as the spec's OPPS row (without reliability and the APC link). */
export function toOppsRow(row: OppsAddendumBRow): Omit<z.output<typeof OppsRowSchema>, 'reliability' | keyof ApcLink> {
  return {
    hcpcs_code: row.hcpcs_code,
    year: row.year,
    short_descriptor: row.short_descriptor,
    status_indicator: row.status_indicator,
    apc_code: row.apc_code,
    relative_weight: row.relative_weight,
    payment_rate: row.payment_rate,
    national_unadjusted_copayment: row.national_unadjusted_copayment,
    minimum_unadjusted_copayment: row.minimum_unadjusted_copayment,
    ira_coinsurance_pct: row.ira_coinsurance_pct,
    adjusted_copayment: row.adjusted_copayment,
    drug_device_passthrough_expiry: row.drug_device_passthrough_expiry,
  };
}

/** A CLFS row as a lab fee row (`rate` null: not nationally priced). */
export function toLabRow(r: ClfsRow): z.output<typeof LabRowSchema> {
  return {
    hcpcs_code: r.hcpcs_code,
    modifier: r.modifier,
    year: r.year,
    effective_date: r.effective_date,
    indicator: r.indicator,
    rate: r.rate,
    nationally_priced: r.rate !== null,
    short_descriptor: r.short_descriptor,
    long_descriptor: r.long_descriptor,
  };
}
