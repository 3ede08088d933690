import { medicaidMueDataset } from '../_ncci_mue/mue.js';

/** Medicaid NCCI MUE table for practitioner services: no adjudication indicator, quarter from the file name. */
export const medicaidMuePrac = medicaidMueDataset('medicaid_mue_prac', 'practitioner');
