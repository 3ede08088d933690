import { medicaidMueDataset } from '../_ncci_mue/mue.js';

/** Medicaid NCCI MUE table for outpatient hospital services: no adjudication indicator, quarter from the file name. */
export const medicaidMueHosp = medicaidMueDataset('medicaid_mue_hosp', 'hosp-op');
