import { medicaidMueDataset } from '../_ncci_mue/mue.js';

/** Medicaid NCCI MUE table for DME supplier services: no adjudication indicator, quarter from the file name. */
export const medicaidMueDme = medicaidMueDataset('medicaid_mue_dme', 'dme');
