import { medicaidMueDataset, type MedicaidMueRow } from '../_ncci_mue/mue.js';
import type { Dataset } from '../types.js';

/** Medicaid NCCI MUE table for practitioner services: no adjudication indicator, quarter from the file name. */
export const medicaidMuePrac: Dataset<MedicaidMueRow> = medicaidMueDataset('medicaid_mue_prac', 'practitioner');
