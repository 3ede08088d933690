import type { z } from 'zod';
import { isDatasetId, lookupDataset, type DatasetId } from '../datasets/registry.js';
import type { SnapshotReader } from '../warehouse/snapshot.js';
import type { ResponseHeader } from './route.js';
import type { DatasetCitationSchema, ReliabilitySchema } from './schemas.js';

/** The spec's reliability object (the wire form of a `Trace`). */
export type Reliability = z.output<typeof ReliabilitySchema>;

/** The citation of one loaded dataset version: publisher and the source files it was built from. */
export type DatasetCitation = z.output<typeof DatasetCitationSchema>;

/**
 * The headers `Trace.headers()` writes, as a route declares them (`responseHeaders`): an answer the
 * spec shapes as a bare array names its dataset versions there, the only place it can.
 */
export const VERSION_HEADERS: Record<string, ResponseHeader> = {
  'X-Dataset-Versions': { description: 'the dataset versions the answer read, as `dataset=version` pairs joined by `, ` (`payers=2026-11-27`): the reliability object of an answer the spec shapes as a bare array', always: true },
  'X-Degraded': { description: 'present when the answer is degraded: `true; ` and its warnings joined by ` | ` (ASCII, at most 1,000 characters)', always: false },
};

/**
 * What one answer used, recorded while it is computed: the dataset versions it read, its
 * warnings, whether it had to fall back (degraded), and citations. Built once per call (the
 * pipeline hands one to every handler, an agent run makes one) and turned into the reliability
 * object at the end, so helpers take the trace instead of threading `warnings`, `used` and
 * `degraded` through their parameters.
 */
export class Trace {
  readonly warnings: string[] = [];
  /** Dataset -> the version label used (null: the latest loaded version). */
  private readonly used = new Map<DatasetId, string | null>();
  private fellBack = false;
  /** Outside services asked live (no snapshot version): name -> version, publisher, when asked. */
  private readonly live = new Map<string, { version: string; publisher: string; at: string }>();

  constructor(
    readonly snapshot: SnapshotReader | null,
    private readonly now: () => Date,
  ) {}

  /** Records that the answer read `dataset` (at `version`; the latest loaded one when not given). */
  use(dataset: DatasetId, version?: string | null): this {
    // A named version wins over "the latest" recorded earlier for the same dataset.
    if (version || !this.used.has(dataset)) this.used.set(dataset, version ?? null);
    return this;
  }

  /** Records every dataset of a `{dataset: version}` map (ids read from data that name no registered dataset are skipped). */
  useAll(versions: Partial<Record<DatasetId, string>> | Record<string, string>): this {
    for (const [d, v] of Object.entries(versions)) if (isDatasetId(d) && v) this.use(d, v);
    return this;
  }

  /**
   * Records that the answer read an outside service live (the NPPES registry): it is named in
   * `dataset_versions` (its API version) and `data_sources` (`loaded_at`: when it answered) as a
   * dataset is, so an answer that read data always names what it read.
   */
  useLive(source: string, version: string, publisher: string): this {
    this.live.set(source, { version, publisher, at: this.now().toISOString() });
    return this;
  }

  warn(...messages: string[]): this {
    this.warnings.push(...messages);
    return this;
  }

  /**
   * The one rule for "degraded": the answer used data other than the request asked for (a
   * version that does not cover the date of service, another year's factor or fee schedule, a
   * national value for a missing locality). Each message is a warning; none given, nothing is
   * marked (so `fallback(...pick.warnings)` marks only a pick that fell back).
   */
  fallback(...messages: string[]): this {
    if (messages.length === 0) return this;
    this.fellBack = true;
    return this.warn(...messages);
  }

  /** The answer rests on a fallback (another year's data, a dataset not loaded): `reliability.degraded`. */
  degrade(when = true): this {
    if (when) this.fellBack = true;
    return this;
  }

  get degraded(): boolean {
    return this.fellBack;
  }

  /** The citation of a dataset version, recorded among the versions the answer used. */
  cite(dataset: DatasetId, version: string): DatasetCitation {
    this.use(dataset, version);
    const v = this.snapshot?.versions(dataset).find((x) => x.version === version);
    return { dataset, version, publisher: lookupDataset(dataset)?.publisher ?? dataset, source_files: v?.source_files.map((f) => f.name) ?? [] };
  }

  /** `{dataset: version}` of what was used and is loaded (the wire's `dataset_versions`). */
  get versions(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [dataset, label] of this.used) {
      const versions = this.snapshot?.versions(dataset) ?? [];
      const v = label ? versions.find((x) => x.version === label) : versions.at(-1);
      if (v) out[dataset] = v.version;
    }
    return out;
  }

  /**
   * What an answer the spec shapes as a bare array (no room for `reliability`) says in its
   * headers: `X-Dataset-Versions: payers=2026-11-27, x12_codes=...`, and `X-Degraded: true` with
   * the reason when the reliability object would be degraded.
   */
  headers(): Record<string, string> {
    const r = this.reliability();
    const out: Record<string, string> = { 'x-dataset-versions': Object.entries(r.dataset_versions).map(([d, v]) => `${d}=${v}`).join(', ') };
    if (r.degraded) out['x-degraded'] = `true; ${r.warnings.join(' | ').replace(/[^\x20-\x7e]/g, '?').slice(0, 1000)}`;
    return out;
  }

  /**
   * The reliability object from the snapshot's manifest. A dataset used but not loaded (or a
   * version not loaded), or read from an illustrative seed version, marks the answer degraded
   * with a warning naming it.
   */
  reliability(): Reliability {
    const warnings = [...this.warnings];
    let degraded = this.fellBack;
    const data_sources: Reliability['data_sources'] = {};
    const dataset_versions: Record<string, string> = {};
    for (const [dataset, label] of this.used) {
      const versions = this.snapshot?.versions(dataset) ?? [];
      const v = label ? versions.find((x) => x.version === label) : versions.at(-1);
      if (!v) {
        degraded = true;
        warnings.push(`dataset ${dataset} is not loaded in snapshot ${this.snapshot?.id ?? '(none)'}`);
        continue;
      }
      dataset_versions[dataset] = v.version;
      if (v.illustrative) {
        degraded = true;
        warnings.push(`${dataset} ${v.version} is an illustrative seed (the publisher's layout with invented figures, not a published release): load ${lookupDataset(dataset)?.publisher ?? 'the publisher'}'s file with rcm ingest before relying on this answer`);
      }
      data_sources[dataset] = {
        publisher: lookupDataset(dataset)?.publisher ?? dataset,
        source_files: v.source_files.map((f) => f.name),
        loaded_at: v.loaded_at,
      };
    }
    for (const [source, l] of this.live) {
      dataset_versions[source] = l.version;
      data_sources[source] = { publisher: l.publisher, source_files: [], loaded_at: l.at };
    }
    return { generated_at: this.now().toISOString(), data_sources, dataset_versions, degraded, warnings };
  }
}
