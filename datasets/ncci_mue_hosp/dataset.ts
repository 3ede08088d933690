import { medicareMueDataset, type MueRow } from '../_ncci_mue/mue.js';
import type { Dataset } from '../types.js';

/** Medicare NCCI MUE table for outpatient hospital services: MCR_MUE_OutpatientHospitalServices_Eff_MM-DD-YYYY.csv. */
export const ncciMueHosp: Dataset<MueRow> = medicareMueDataset('ncci_mue_hosp', 'hosp-op');
