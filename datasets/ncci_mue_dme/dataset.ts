import { medicareMueDataset, type MueRow } from '../_ncci_mue/mue.js';
import type { Dataset } from '../types.js';

/** Medicare NCCI MUE table for DME supplier services: MCR_MUE_DMESupplierServices_Eff_MM-DD-YYYY.csv. */
export const ncciMueDme: Dataset<MueRow> = medicareMueDataset('ncci_mue_dme', 'dme');
