import type { Dataset } from './types.js';
import { gpci } from './gpci/dataset.js';
import { ncciPtpPrac } from './ncci_ptp_prac/dataset.js';
import { ncciPtpHosp } from './ncci_ptp_hosp/dataset.js';
import { medicaidPtpPrac } from './medicaid_ptp_prac/dataset.js';
import { medicaidPtpHosp } from './medicaid_ptp_hosp/dataset.js';
import { dmepos } from './dmepos/dataset.js';
import { dmeposRuralZip } from './dmepos_rural_zip/dataset.js';
import { clfs } from './clfs/dataset.js';
import { aspPricing } from './asp_pricing/dataset.js';
import { aspCrosswalk } from './asp_crosswalk/dataset.js';
import { oppsAddendumB } from './opps_addendum_b/dataset.js';
import { localityCounty } from './locality_county/dataset.js';
import { mpfsRvu } from './mpfs_rvu/dataset.js';
import { zipLocality } from './zip_locality/dataset.js';
import { wageIndex } from './wage_index/dataset.js';
import { cbsaCounty } from './cbsa_county/dataset.js';
import { facilities } from './facilities/dataset.js';
import { ncciMuePrac } from './ncci_mue_prac/dataset.js';
import { ncciMueHosp } from './ncci_mue_hosp/dataset.js';
import { ncciMueDme } from './ncci_mue_dme/dataset.js';
import { ncciAoc } from './ncci_aoc/dataset.js';
import { medicaidMuePrac } from './medicaid_mue_prac/dataset.js';
import { medicaidMueHosp } from './medicaid_mue_hosp/dataset.js';
import { medicaidMueDme } from './medicaid_mue_dme/dataset.js';
import { payers } from './payers/dataset.js';
import { x12Codes } from './x12_codes/dataset.js';
import { oppsCap } from './opps_cap/dataset.js';
import { icd10cm } from './icd10cm/dataset.js';
import { mcdCoverage } from './mcd_coverage/dataset.js';
import { mcdDocuments } from './mcd_documents/dataset.js';
import { macJurisdictions } from './mac_jurisdictions/dataset.js';
import { mediCalAprDrg } from './medi_cal_apr_drg/dataset.js';
import { mediCalHospitals } from './medi_cal_hospitals/dataset.js';
import { mediCalDrgPolicy } from './medi_cal_drg_policy/dataset.js';
import { manufacturer340b } from './manufacturer_340b/dataset.js';
import { fdaNdc } from './fda_ndc/dataset.js';
import { umlsConcepts } from './umls_concepts/dataset.js';
import { nppes } from './nppes/dataset.js';
import { anesthesiaBaseUnits } from './anesthesia_base_units/dataset.js';
import { anesthesiaCf } from './anesthesia_cf/dataset.js';
import { rxnorm } from './rxnorm/dataset.js';
import { medicareYearlyFigures } from './medicare_yearly_figures/dataset.js';
import { ascAddendumAa } from './asc_addendum_aa/dataset.js';
import { oppsAddendumA } from './opps_addendum_a/dataset.js';
import { hcpcsLevel2 } from './hcpcs_level2/dataset.js';
import { aprDrgCodes } from './apr_drg_codes/dataset.js';

/**
 * Every dataset the service knows, in the order `rcm datasets` lists them. Adding one: a folder
 * under datasets/ and a line here (`npm run new:dataset -- <id>` writes both; datasets/registry.test.ts
 * fails on a folder that is not listed).
 */
const REGISTERED = [
  mpfsRvu,
  gpci,
  ncciPtpPrac,
  ncciPtpHosp,
  medicaidPtpPrac,
  medicaidPtpHosp,
  dmepos,
  dmeposRuralZip,
  clfs,
  aspPricing,
  aspCrosswalk,
  oppsAddendumB,
  localityCounty,
  zipLocality,
  wageIndex,
  cbsaCounty,
  facilities,
  ncciMuePrac,
  ncciMueHosp,
  ncciMueDme,
  ncciAoc,
  medicaidMuePrac,
  medicaidMueHosp,
  medicaidMueDme,
  payers,
  x12Codes,
  oppsCap,
  icd10cm,
  mcdCoverage,
  mcdDocuments,
  macJurisdictions,
  mediCalAprDrg,
  mediCalHospitals,
  mediCalDrgPolicy,
  manufacturer340b,
  fdaNdc,
  umlsConcepts,
  nppes,
  anesthesiaBaseUnits,
  anesthesiaCf,
  rxnorm,
  medicareYearlyFigures,
  ascAddendumAa,
  oppsAddendumA,
  hcpcsLevel2,
  aprDrgCodes,
];

/**
 * The id of a registered dataset: a closed union taken from the declarations above, so an id
 * spelled as a literal where a `DatasetId` is asked compiles only when that dataset exists.
 */
export type DatasetId = (typeof REGISTERED)[number]['id'];

// Closes the warehouse's dataset-name type over the registered ids (see `RegisteredDatasets`).
declare module '../warehouse/snapshot.js' {
  interface RegisteredDatasets extends Record<DatasetId, true> {}
}

/** Every registered dataset (`REGISTERED`, typed by the union of their ids). */
export const DATASETS: Dataset<any, DatasetId>[] = REGISTERED;

const BY_ID = new Map<string, Dataset<any, DatasetId>>(DATASETS.map((d) => [d.id, d]));

/** The dataset declared under `id` (a `DatasetId`, or any text such as a CLI argument), or undefined. */
/** True when `id` names a registered dataset (for ids read from data: a manifest, a version record). */
export const isDatasetId = (id: string): id is DatasetId => BY_ID.has(id);

export function lookupDataset(id: string): Dataset<any, DatasetId> | undefined {
  return BY_ID.get(id);
}

/**
 * Why a dataset id is not one, with what was probably meant: the id written as a publisher's
 * folder or a person writes it (`mpfs-rvu`, `MPFS RVU`), else the ids that contain it or that it
 * contains (`ptp` names the PTP datasets); otherwise the whole list.
 */
export function unknownDataset(id: string): string {
  const norm = id.trim().toLowerCase().replace(/[\s.-]+/g, '_');
  const ids = DATASETS.map((d) => d.id as string);
  const exact = ids.find((x) => x === norm);
  if (exact) return `unknown dataset '${id}': did you mean ${exact}?`;
  const near = norm.length >= 3 ? ids.filter((x) => x.includes(norm) || norm.includes(x)) : [];
  if (near.length) return `unknown dataset '${id}': did you mean ${near.length === 1 ? near[0] : `one of ${near.join(', ')}`}?`;
  return `unknown dataset '${id}' (known: ${ids.join(', ')})`;
}
