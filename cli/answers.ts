import type { DiffReport } from '../ingest/diff.js';
import { DATASET_FAMILIES, FAMILY_ROUTES } from '../server/routes/datasets_read.generated.js';
import { fmtInt } from './format.js';

// What a version's diff means for the served answers: its own module, loaded by `rcm ingest` only
// (the table is generated from the route files; `rcm snapshots` and `rcm diff` never need it).

/** The route families whose answers may change with a version's diff (none when it changed no key). */
export function answersChanged(dataset: string, r: DiffReport): { family: string; routes: readonly string[] }[] {
  if (r.counts.added + r.counts.removed + r.counts.changed === 0) return [];
  return (DATASET_FAMILIES[dataset] ?? []).map((family) => ({ family, routes: FAMILY_ROUTES[family] ?? [] }));
}

/** `payment (1 route), codes (2 routes)`: the families a changed version reaches, in a line. */
export function answersLine(families: { family: string; routes: readonly string[] }[], r: DiffReport): string {
  if (families.length === 0) return 'no answer changes (no key added, removed or changed)';
  return `answers that may change (keys +${fmtInt(r.counts.added)} -${fmtInt(r.counts.removed)} ~${fmtInt(r.counts.changed)}): ${families.map((f) => `${f.family} (${f.routes.length === 1 ? f.routes[0] : `${f.routes.length} routes`})`).join(', ')}`;
}
