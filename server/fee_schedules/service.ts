import type { z } from 'zod';
import type { ClfsRow } from '../../datasets/clfs/dataset.js';
import type { DmeposRow } from '../../datasets/dmepos/dataset.js';
import type { OppsAddendumBRow } from '../../datasets/opps_addendum_b/dataset.js';
import type { DmeRowSchema, LabRowSchema, OppsRowSchema } from './schemas.js';

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
