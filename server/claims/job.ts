import { todayOf } from '../../datasets/_shared/dates.js';
import { checkLimits, writeInParts, type ExplainSpec, type JobChannel } from '../remittances/job.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { Trace } from '../trace.js';
import { claimCheckCsv } from './csv.js';
import { checkClaims, readClaims } from './service.js';

/**
 * One claim check as a remittance thread's job (`POST /v1/claims/check` runs on the same worker
 * pool, limits and budget as the 835 explanation): read the file, refuse it past the work limits,
 * wait until the budget admits its segments, check it against the snapshot the request read, then
 * write the answer (JSON, or CSV) through the channel in parts at the reader's pace.
 */
export async function runClaimCheck(bytes: Uint8Array, spec: ExplainSpec, snapshot: () => Promise<SnapshotReader>, ch: JobChannel): Promise<void> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const file = readClaims(text);
  checkLimits(file, spec);
  if (!(await ch.admit({ segments: file.segments, claims: file.claims }))) return;
  const snap = await snapshot();
  const trace = new Trace(snap, () => new Date(spec.at));
  if (spec.testKey) trace.warn('test keys and the test host must not carry PHI: send only de-identified or synthetic 837 files with a test key');
  const today = todayOf(new Date(spec.at));
  const check = await checkClaims(snap, text, { asOf: spec.asOf, today, where: spec.where, trace, summary: spec.mode === 'summary' });
  ch.ready();
  await writeInParts(ch, spec.format === 'csv' ? claimCheckCsv([{ file: null, check }]) : JSON.stringify(check));
}
