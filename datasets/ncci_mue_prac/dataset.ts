import { medicareMueDataset, type MueRow } from '../_ncci_mue/mue.js';
import type { Dataset } from '../types.js';

/** Medicare NCCI MUE table for practitioner services (and ASCs): MCR_MUE_PractitionerServices_Eff_MM-DD-YYYY.csv. */
export const ncciMuePrac: Dataset<MueRow> = medicareMueDataset('ncci_mue_prac', 'practitioner');
