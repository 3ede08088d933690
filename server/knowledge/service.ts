import type { z } from 'zod';
import type { Manifest } from '../../warehouse/manifest.js';
import { datasetsNamed, type ChangeQuerySchema, type ChangeSchema } from './schemas.js';

/**
 * Change records of a manifest matching the query, newest first: `dataset` is an id, a family
 * prefix (`mpfs` matches `mpfs_rvu`, `ncci` every `ncci_*`) or a publication (`ipps`).
 */
export function findChanges(manifest: Manifest, q: z.output<typeof ChangeQuerySchema>): { changes: z.output<typeof ChangeSchema>[]; total: number; datasets: string[] } {
  const named = q.dataset ? new Set(datasetsNamed(q.dataset)) : null;
  const matches = manifest.changes
    .filter((c) => !named || named.has(c.dataset))
    .filter((c) => !q.from_version || c.from_version === q.from_version)
    .filter((c) => !q.to_version || c.to_version === q.to_version)
    .filter((c) => !q.since || (c.effective_date ?? c.created_at.slice(0, 10)) >= q.since)
    .reverse();
  return {
    changes: matches.slice(0, q.limit).map((c) => ({
      id: c.id,
      dataset: c.dataset,
      from_version: c.from_version,
      to_version: c.to_version,
      effective_date: c.effective_date,
      summary: c.summary,
      counts: c.counts,
      ...(c.supersedes ? { supersedes: c.supersedes } : {}),
      seed: c.seed === true,
      replaces_seed: c.replaces_seed === true,
      replaced_seeds: c.replaced_seeds ?? [],
      delta_of: c.delta_of ?? null,
      created_at: c.created_at,
    })),
    total: matches.length,
    // The datasets of the changes found; when none is found, those searched (an empty answer names what it read).
    datasets: [...new Set(matches.length ? matches.map((c) => c.dataset) : named ? [...named] : manifest.changes.map((c) => c.dataset))],
  };
}
