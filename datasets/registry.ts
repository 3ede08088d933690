import type { Dataset } from './types.js';
import { gpci } from './gpci/dataset.js';
import { localityCounty } from './locality_county/dataset.js';
import { mpfsRvu } from './mpfs_rvu/dataset.js';
import { zipLocality } from './zip_locality/dataset.js';
import { ncciMuePrac } from './ncci_mue_prac/dataset.js';
import { ncciMueHosp } from './ncci_mue_hosp/dataset.js';
import { ncciMueDme } from './ncci_mue_dme/dataset.js';
import { ncciAoc } from './ncci_aoc/dataset.js';
import { medicaidMuePrac } from './medicaid_mue_prac/dataset.js';
import { medicaidMueHosp } from './medicaid_mue_hosp/dataset.js';
import { medicaidMueDme } from './medicaid_mue_dme/dataset.js';

/** Every dataset the service knows. Adding one: a folder under datasets/ and a line here. */
export const DATASETS: Dataset<any>[] = [
  mpfsRvu,
  gpci,
  localityCounty,
  zipLocality,
  ncciMuePrac,
  ncciMueHosp,
  ncciMueDme,
  ncciAoc,
  medicaidMuePrac,
  medicaidMueHosp,
  medicaidMueDme,
];

export function getDataset(id: string): Dataset<any> | undefined {
  return DATASETS.find((d) => d.id === id);
}
