import { medicareMueDataset } from '../_ncci_mue/mue.js';

/** Medicare NCCI MUE table for practitioner services (and ASCs): MCR_MUE_PractitionerServices_Eff_MM-DD-YYYY.csv. */
export const ncciMuePrac = medicareMueDataset('ncci_mue_prac', 'practitioner');
