/**
 * Medicare's financial liability modifiers (Medicare Claims Processing Manual, Pub. 100-04, ch. 30,
 * section 40.3.6): what the claim line says about an Advance Beneficiary Notice (ABN) or a
 * statutory exclusion, which decides whether a non-covered amount may be billed to the beneficiary.
 */
export const LIABILITY_MODIFIERS = {
  GA: 'a waiver of liability (ABN) is on file: the beneficiary is liable if the service is denied as not reasonable and necessary',
  GZ: 'an ABN was expected but not obtained: the provider is liable and may not bill the beneficiary',
  GY: 'statutorily excluded or not a Medicare benefit: the beneficiary is liable',
  GX: 'a voluntary ABN for a statutorily excluded service',
} as const;
export type LiabilityModifier = keyof typeof LIABILITY_MODIFIERS;

/** The line's liability modifier, if any: GA first (an ABN on file decides), then GZ, GY, GX. */
export function liabilityModifierOf(modifiers: readonly string[]): LiabilityModifier | null {
  const m = new Set(modifiers.map((x) => x.trim().toUpperCase()));
  for (const k of ['GA', 'GZ', 'GY', 'GX'] as const) if (m.has(k)) return k;
  return null;
}
