import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { oppsAddendumB, type OppsAddendumBRow } from './dataset.js';
import { versionLabel, versionRows } from '../_shared/versions.js';
import { knownCodes } from '../_shared/codes.js';

/** A stored Addendum B row plus the version label (`2026-01`) it was loaded under. */
export type OppsRate = OppsAddendumBRow & { version: string };

/** Latest loaded Addendum B effective in `year` (quarterly releases), or the latest overall. */
export function oppsVersionFor(snapshot: SnapshotReader, year?: number): string | undefined {
  return versionLabel(snapshot, oppsAddendumB.id, { rule: 'effective', year });
}

/**
 * The OPPS Addendum B rows of a HCPCS code (one, or none when the release lacks it): status
 * indicator, APC, relative weight, national payment rate and copayments, from the release for
 * `year` (latest when omitted). `payment_rate`/`apc_code` are null for codes not paid under an APC
 * (SI `B`, `E1`, `N`, `Q4`, …): composition must treat those as packaged/not payable, not as $0.
 */
export async function findOppsRates(snapshot: SnapshotReader, hcpcs: string, year?: number): Promise<OppsRate[]> {
  const version = oppsVersionFor(snapshot, year);
  return version ? findOppsRatesIn(snapshot, version, hcpcs) : [];
}

/**
 * The Addendum B rows of a code in one release. A release (~18k rows) is read once per snapshot
 * into a map, so a first pass over many codes costs no query per code.
 */
export async function findOppsRatesIn(snapshot: SnapshotReader, version: string, hcpcs: string): Promise<OppsRate[]> {
  const row = (await versionRows(snapshot, oppsAddendumB, version, (r) => r.hcpcs_code)).get(hcpcs);
  return row ? [row] : [];
}

/** True when the code is in any loaded Addendum B release. */
export async function isOppsCode(snapshot: SnapshotReader, hcpcs: string): Promise<boolean> {
  return (await knownCodes(snapshot, oppsAddendumB.id)).has(hcpcs);
}
