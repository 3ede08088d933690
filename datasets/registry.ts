import type { Dataset } from './types.js';
import { gpci } from './gpci/dataset.js';
import { localityCounty } from './locality_county/dataset.js';
import { mpfsRvu } from './mpfs_rvu/dataset.js';
import { zipLocality } from './zip_locality/dataset.js';

/** Every dataset the service knows. Adding one: a folder under datasets/ and a line here. */
export const DATASETS: Dataset<any>[] = [
  mpfsRvu,
  gpci,
  localityCounty,
  zipLocality,
];

export function getDataset(id: string): Dataset<any> | undefined {
  return DATASETS.find((d) => d.id === id);
}
