import { describe, expect, expectTypeOf, it } from 'vitest';
import { isDatasetId, type DatasetId } from './registry.js';
import { Trace } from '../server/trace.js';
import type { DatasetName, SnapshotReader } from '../warehouse/snapshot.js';

// `npm test` type-checks this file: each @ts-expect-error fails tsc when its line compiles, that
// is, when a dataset id became a free string again somewhere it is typed.
describe('dataset ids are a closed vocabulary', () => {
  it('a mistyped id fails to compile in a trace, a snapshot lookup and a citation', () => {
    const trace = new Trace(null, () => new Date());
    // @ts-expect-error 'dmepso' names no registered dataset
    trace.use('dmepso');
    // @ts-expect-error 'wage_idx' names no registered dataset
    const cited = () => trace.cite('wage_idx', '2026');
    const snapshot = { has: () => false, versions: () => [] } as unknown as SnapshotReader;
    // @ts-expect-error 'facility' is not 'facilities'
    const has = () => snapshot.has('facility');
    // @ts-expect-error 'mpfs_rvus' names no registered dataset
    const versions = () => snapshot.versions('mpfs_rvus');
    expect([typeof cited, typeof has, typeof versions]).toEqual(['function', 'function', 'function']);
    trace.use('dmepos');
    expect(trace.reliability().degraded).toBe(true);
    expectTypeOf<DatasetName>().toEqualTypeOf<DatasetId>();
  });

  it('ids read from data are checked at run time before they are recorded', () => {
    expect(isDatasetId('dmepos')).toBe(true);
    expect(isDatasetId('dmepso')).toBe(false);
    const trace = new Trace(null, () => new Date()).useAll({ dmepos: '2026', not_a_dataset: '1' });
    // Without a snapshot nothing is loaded: the one recorded id is named as missing, the other never was.
    expect(trace.reliability().warnings).toEqual(['dataset dmepos is not loaded in snapshot (none)']);
  });
});
