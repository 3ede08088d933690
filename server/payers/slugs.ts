/**
 * Payer slugs the NCCI routes know, and which NCCI edit set each reads. Medicaid programs read
 * the Medicaid NCCI edit set; Medicare and the commercial payers that adopt NCCI read Medicare's
 * (commercial payers get a warning: they may apply their own edits on top).
 *
 * This is the one interim home of payer identity: the `payers` dataset (curated payer knowledge,
 * with aliases and each payer's `ncci_edit_set`) replaces it.
 */
export interface NcciPayer {
  editSet: 'medicare' | 'medicaid';
  warning?: string;
}

const COMMERCIAL = 'commercial payer: Medicare NCCI edits are shown as the reference; the payer may apply its own edits';

export const NCCI_PAYERS: Record<string, NcciPayer> = {
  medicare: { editSet: 'medicare' },
  medicare_ffs: { editSet: 'medicare' },
  medicare_advantage: { editSet: 'medicare', warning: 'Medicare Advantage plans follow NCCI but may add their own code-pair edits' },
  medicaid: { editSet: 'medicaid' },
  masshealth: { editSet: 'medicaid' },
  medi_cal: { editSet: 'medicaid' },
  uhc: { editSet: 'medicare', warning: COMMERCIAL },
  aetna: { editSet: 'medicare', warning: COMMERCIAL },
  anthem: { editSet: 'medicare', warning: COMMERCIAL },
  cigna: { editSet: 'medicare', warning: COMMERCIAL },
  humana: { editSet: 'medicare', warning: COMMERCIAL },
};

/** Normalises a payer slug as callers type it (`Medi-Cal` -> `medi_cal`). */
export const toSlug = (s: string) => s.trim().toLowerCase().replace(/[-\s]+/g, '_');
