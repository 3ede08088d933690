import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DATASETS } from '../datasets/registry.js';
import { IngestError } from '../datasets/_shared/issue.js';
import type { Warehouse } from '../warehouse/store.js';
import { ingestBatch, type IngestOptions, type StagedVersion } from './pipeline.js';

/** What a seed folder holds (`seeds/origins.json`): the publisher's rows, cited curated rows, or invented figures. */
export type SeedOrigin = 'real_excerpt' | 'curated' | 'illustrative';

const ORIGINS: readonly SeedOrigin[] = ['real_excerpt', 'curated', 'illustrative'];

/** `seeds/origins.json`: each seed folder's origin (a folder not listed there is refused). */
export async function seedOrigins(seedsDir: string): Promise<Record<string, SeedOrigin>> {
  const file = join(seedsDir, 'origins.json');
  const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  const out: Record<string, SeedOrigin> = {};
  for (const [id, v] of Object.entries(raw)) {
    if (id.startsWith('$')) continue;
    if (!ORIGINS.includes(v as SeedOrigin)) throw new IngestError(`${id}: origin '${String(v)}' is not one of ${ORIGINS.join(', ')}`, file);
    out[id] = v as SeedOrigin;
  }
  return out;
}

/**
 * The seed plan: `seeds/<dataset_id>/` holds the files of one version, or one sub-folder per
 * version (loaded in name order, so NCCI can seed two quarters). Markdown files are notes.
 * `seeds/origins.json` says which seeds are illustrative (their versions are marked so).
 */
export async function seedPlan(seedsDir: string): Promise<IngestOptions[]> {
  const origins = await seedOrigins(seedsDir);
  const plan: IngestOptions[] = [];
  for (const d of DATASETS) {
    const dir = join(seedsDir, d.id);
    const names = await readdir(dir).catch(() => null);
    if (!names) continue;
    const origin = origins[d.id];
    if (!origin) throw new IngestError(`seeds/${d.id} is not listed in seeds/origins.json (real_excerpt, curated or illustrative)`, join(seedsDir, 'origins.json'));
    const seed = { seed: true, ...(origin === 'illustrative' ? { illustrative: true } : {}) };
    const files: string[] = [];
    const subdirs: string[] = [];
    for (const n of names.sort()) {
      if (n.endsWith('.md') || n.startsWith('.')) continue;
      const p = join(dir, n);
      if ((await stat(p)).isDirectory()) subdirs.push(p);
      else files.push(p);
    }
    if (files.length) plan.push({ dataset: d.id, files, ...seed });
    for (const sd of subdirs) {
      const inner = (await readdir(sd)).filter((n) => !n.endsWith('.md') && !n.startsWith('.')).sort();
      if (inner.length) plan.push({ dataset: d.id, files: inner.map((n) => join(sd, n)), ...seed });
    }
  }
  return plan;
}

/**
 * Loads every seed as one snapshot (one publish, not one per dataset). A dataset with a real
 * version keeps it (`kept`): seeds never go back in front of real data. `snapshotId` is null
 * when nothing was loaded.
 */
export async function seedAll(wh: Warehouse, seedsDir: string, now: () => Date = () => new Date()): Promise<{ snapshotId: string | null; staged: StagedVersion[]; kept: string[] }> {
  const plan = await seedPlan(seedsDir);
  const { manifest, staged, kept } = await ingestBatch(wh, plan, now);
  return { snapshotId: manifest?.id ?? null, staged, kept };
}
