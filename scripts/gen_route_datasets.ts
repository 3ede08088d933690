/**
 * `npm run gen:route-datasets`: writes `server/routes/datasets_read.generated.ts`, the route families
 * whose answers may change when a dataset changes (`testing/route_datasets.ts` says how it is found).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DATASETS } from '../datasets/registry.js';
import { REPO_ROOT } from '../testing/shared.js';
import { routeDatasetsSource } from '../testing/route_datasets.js';

await writeFile(join(REPO_ROOT, 'server/routes/datasets_read.generated.ts'), await routeDatasetsSource(DATASETS.map((d) => d.id)));
process.stdout.write('wrote server/routes/datasets_read.generated.ts\n');
