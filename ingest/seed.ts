import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DATASETS } from '../datasets/registry.js';
import type { Warehouse } from '../warehouse/store.js';
import { ingestBatch, type IngestOptions, type StagedVersion } from './pipeline.js';

/**
 * The seed plan: `seeds/<dataset_id>/` holds the files of one version, or one sub-folder per
 * version (loaded in name order, so NCCI can seed two quarters). Markdown files are notes.
 */
export async function seedPlan(seedsDir: string): Promise<IngestOptions[]> {
  const plan: IngestOptions[] = [];
  for (const d of DATASETS) {
    const dir = join(seedsDir, d.id);
    const names = await readdir(dir).catch(() => null);
    if (!names) continue;
    const files: string[] = [];
    const subdirs: string[] = [];
    for (const n of names.sort()) {
      if (n.endsWith('.md') || n.startsWith('.')) continue;
      const p = join(dir, n);
      if ((await stat(p)).isDirectory()) subdirs.push(p);
      else files.push(p);
    }
    if (files.length) plan.push({ dataset: d.id, files, seed: true });
    for (const sd of subdirs) {
      const inner = (await readdir(sd)).filter((n) => !n.endsWith('.md') && !n.startsWith('.')).sort();
      if (inner.length) plan.push({ dataset: d.id, files: inner.map((n) => join(sd, n)), seed: true });
    }
  }
  return plan;
}

/** Loads every seed as one snapshot (one publish, not one per dataset). */
export async function seedAll(wh: Warehouse, seedsDir: string, now: () => Date = () => new Date()): Promise<{ snapshotId: string; staged: StagedVersion[] }> {
  const plan = await seedPlan(seedsDir);
  const { manifest, staged } = await ingestBatch(wh, plan, now);
  return { snapshotId: manifest.id, staged };
}
