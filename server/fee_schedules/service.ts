import type { z } from 'zod';
import { versionForRequest } from '../../datasets/_shared/versions.js';
import type { ClfsRow } from '../../datasets/clfs/dataset.js';
import type { DmeposRow } from '../../datasets/dmepos/dataset.js';
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
  dataset: 'opps_addendum_b' | 'clfs' | 'dmepos',
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

/** An Addendum B row as the spec's OPPS row (without reliability). */
export function toOppsRow(row: OppsAddendumBRow): Omit<z.output<typeof OppsRowSchema>, 'reliability'> {
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
