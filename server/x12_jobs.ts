import { runClaimCheck } from './claims/job.js';
import { closeLoop } from './claims/loop.js';
import { checkClaims, readClaims } from './claims/service.js';
import { checkLimits, runExplanation, writeInParts, type JobRunner, type JobRunners } from './remittances/job.js';
import type { RemitClaim } from './remittances/schemas.js';
import { explanationOf } from './remittances/service.js';
import { readX12 } from './remittances/x12.js';
import { Trace } from './trace.js';
import { todayOf } from '../datasets/_shared/dates.js';
import { ValidationError } from '../warehouse/errors.js';

/**
 * An 835 explained against the 837s its claims were sent as (`POST /v1/remittances/explain` with
 * `claims` parts): each 837 checked as `POST /v1/claims/check` checks it, the 835 explained, and
 * the loop closed (`closeLoop`); the answer is the explanation with its `loop`, as JSON. The work
 * admitted is every file's segments; the limits apply to the 835 and to each 837.
 */
const runLoop: JobRunner = async (bytes, spec, snapshot, ch) => {
  if (spec.format !== 'json') throw new ValidationError([{ loc: ['query', 'format'], msg: 'an explanation with claims parts answers JSON only: the loop is not a CSV', type: 'value_error' }]);
  const file = readX12(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const claims = (spec.claims ?? []).map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  const read = claims.map((b) => readClaims(b));
  for (const f of [file, ...read]) checkLimits(f, spec);
  const total = { segments: file.segments + read.reduce((n, f) => n + f.segments, 0), claims: file.claims + read.reduce((n, f) => n + f.claims, 0) };
  if (!(await ch.admit(total))) return;
  const snap = await snapshot();
  const trace = new Trace(snap, () => new Date(spec.at));
  const checks = [];
  for (const b of claims) {
    const t = new Trace(snap, () => new Date(spec.at));
    checks.push(await checkClaims(snap, b, { asOf: spec.asOf, today: todayOf(new Date(spec.at)), where: spec.where, trace: t }));
    trace.useAll(t.versions);
  }
  const explanation = await explanationOf(snap, file, spec.asOf, trace, spec.where, { testKey: spec.testKey, redact: spec.redact });
  const remitted: RemitClaim[] = [];
  const { payersMatched: _, ...e } = await explanation.explainWith({
    claim: async (tx, claim) => {
      tx.claims.push(claim);
      remitted.push(claim);
    },
  });
  ch.ready();
  await writeInParts(ch, JSON.stringify({ ...e, loop: closeLoop(remitted, checks), reliability: trace.reliability() }));
};

/**
 * What the X12 threads run (the remittance worker pool): an 835 explained, an 837 checked, an 835
 * against its 837s. Here, above both areas, so neither imports the other's job; `x12_worker.mjs`
 * serves these.
 */
export const X12_RUNNERS: JobRunners = { explain: runExplanation, check: runClaimCheck, loop: runLoop };

/** The thread script that serves `X12_RUNNERS`. */
export const X12_WORKER = new URL('./x12_worker.mjs', import.meta.url);
