import { medicareMueDataset } from '../_ncci_mue/mue.js';

/** Medicare NCCI MUE table for DME supplier services: MCR_MUE_DMESupplierServices_Eff_MM-DD-YYYY.csv. */
export const ncciMueDme = medicareMueDataset('ncci_mue_dme', 'dme');
