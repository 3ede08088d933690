import { medicareMueDataset } from '../_ncci_mue/mue.js';

/** Medicare NCCI MUE table for outpatient hospital services: MCR_MUE_OutpatientHospitalServices_Eff_MM-DD-YYYY.csv. */
export const ncciMueHosp = medicareMueDataset('ncci_mue_hosp', 'hosp-op');
