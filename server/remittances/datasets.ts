import type { DatasetId } from '../../datasets/registry.js';

/**
 * Every dataset an explanation reads, and only those: `rcm remit explain` mounts these alone (the
 * whole snapshot cost most of a small file's time). Found from the code an explanation runs
 * (`server/remittances/*.ts` and what it calls): the CARC/RARC lists and payer knowledge
 * (`x12_codes`, `payers`, `mac_jurisdictions`); the NCCI links (PTP and MUE of Medicare and
 * Medicaid, practitioner, hospital and DME; `ncci_aoc`); coverage (`mcd_coverage`,
 * `mcd_documents`); pricing through the payment composition (`mpfs_rvu`, `gpci`, `anesthesia_*`,
 * `clfs`, `dmepos`, `dmepos_rural_zip`, `opps_addendum_b`, `opps_cap`, `wage_index`, and the year's
 * figures and preventive list of `medicare_yearly_figures`) and the
 * payee's location (`facilities`, `locality_county`, `cbsa_county`, `zip_locality`, `nppes`).
 * A dataset missing here changes answers: server/remittances/subset_mount.int.test.ts explains the sample
 * 835s with this list and with the whole snapshot and compares.
 */
export const REMIT_DATASETS = [
  'x12_codes',
  'payers',
  'mac_jurisdictions',
  'ncci_ptp_prac',
  'ncci_ptp_hosp',
  'medicaid_ptp_prac',
  'medicaid_ptp_hosp',
  'ncci_mue_prac',
  'ncci_mue_hosp',
  'ncci_mue_dme',
  'medicaid_mue_prac',
  'medicaid_mue_hosp',
  'medicaid_mue_dme',
  'ncci_aoc',
  'mcd_coverage',
  'mcd_documents',
  'mpfs_rvu',
  'gpci',
  'anesthesia_base_units',
  'anesthesia_cf',
  'clfs',
  'dmepos',
  'dmepos_rural_zip',
  'opps_addendum_b',
  'opps_cap',
  'wage_index',
  'facilities',
  'locality_county',
  'cbsa_county',
  'zip_locality',
  'nppes',
  'medicare_yearly_figures',
] as const satisfies readonly DatasetId[];
