import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../../datasets/registry.js';
import { routeDatasets, routeDatasetsSource } from '../../testing/route_datasets.js';
import { REPO_ROOT } from '../../testing/shared.js';
import { DATASET_FAMILIES, FAMILY_ROUTES } from './datasets_read.generated.js';

describe('the route families each dataset may change (what a dry run lists)', () => {
  it('is generated from the current sources (npm run gen:route-datasets)', async () => {
    const checked = await readFile(join(REPO_ROOT, 'server/routes/datasets_read.generated.ts'), 'utf8');
    expect(checked, 'stale: run npm run gen:route-datasets').toBe(await routeDatasetsSource(DATASETS.map((d) => d.id)));
  });

  it('names a route for every dataset, and the payment route for the datasets it prices with', async () => {
    expect(DATASETS.map((d) => d.id).filter((id) => !DATASET_FAMILIES[id]?.length)).toEqual([]);
    const families = (id: string) => DATASET_FAMILIES[id]!;
    for (const id of ['mpfs_rvu', 'gpci', 'opps_cap', 'clfs', 'dmepos']) expect(families(id)).toContain('payment');
    expect(families('nppes')).toContain('npi');
    expect(DATASET_FAMILIES.manufacturer_340b!.flatMap((f) => FAMILY_ROUTES[f]!)).toContain('GET /v1/340b/restrictions/resolve');
  });

  it('follows imports: a route file that reaches no dataset module names none', async () => {
    const map = await routeDatasets(['gpci', 'payers']);
    expect(Object.values(map.datasets).flat()).not.toContain('system');
    expect(map.families.system).toContain('GET /v1/health');
  });
});
