/**
 * National Drug Codes, the one home for every form of them. FDA assigns 10 digits in three dashed
 * segments of variable length (labeler-product-package: 4-4-2, 5-3-2 or 5-4-1), so the dashes
 * carry information: `0002-3229-30` and `00023-229-30` are different packages. Claims (NCPDP,
 * HIPAA 837) use the 11-digit 5-4-2 form, each segment left-padded with zeros.
 *
 * One rule on the wire, wherever an NDC appears: `package_ndc` / `product_ndc` in the labeler's
 * dashed form as FDA and openFDA publish it, and `ndc11` beside it, eleven digits without dashes
 * (`0002-3229-30` and `00002322930`). FDA's 12-digit 6-4-2 format (final rule of 2026, effective
 * 2033) is one more segment layout when it comes.
 */

/** Segment lengths of a 10-digit package NDC as FDA publishes them. */
export const PACKAGE_LAYOUTS = ['4-4-2', '5-3-2', '5-4-1'] as const;
/** Segment lengths of a product NDC (labeler-product). */
export const PRODUCT_LAYOUTS = ['4-4', '5-3', '5-4'] as const;

/** Widths of the 11-digit billing form's segments. */
const WIDTH = [5, 4, 2] as const;

/** `0002-3229-30` -> `4-4-2`; null when the text is not digits in dashed segments. */
export function segmentsOf(ndc: string): string | null {
  if (!/^\d+(-\d+)*$/.test(ndc)) return null;
  return ndc
    .split('-')
    .map((s) => s.length)
    .join('-');
}

/** True for a product NDC in one of FDA's layouts (`0002-3229`, `50090-347`, `71610-0199`). */
export const isProductNdc = (ndc: string): boolean => (PRODUCT_LAYOUTS as readonly string[]).includes(segmentsOf(ndc) ?? '');

/** True for a 10-digit package NDC in one of FDA's layouts. */
export const isPackageNdc = (ndc: string): boolean => (PACKAGE_LAYOUTS as readonly string[]).includes(segmentsOf(ndc) ?? '');

/** Dashed segments padded to 5-4(-2) and joined without dashes: `0002-3229-30` -> `00002322930`, `0002-3229` -> `000023229`. */
const padded = (dashed: string): string =>
  dashed
    .split('-')
    .map((s, i) => s.padStart(WIDTH[i]!, '0'))
    .join('');

/**
 * The 11-digit billing form of a package NDC, without dashes, from any printed form: FDA's dashed
 * 4-4-2, 5-3-2 or 5-4-1 (`0002-3229-30` -> `00002322930`), the dashed 5-4-2 (`00002-3229-30`), or 11
 * digits. Undefined otherwise: ten plain digits are ambiguous (which segment is short is unknown).
 */
export function toNdc11(raw: string): string | undefined {
  const s = raw.trim();
  if (/^\d{11}$/.test(s)) return s;
  const seg = segmentsOf(s);
  return seg === '5-4-2' || (PACKAGE_LAYOUTS as readonly string[]).includes(seg ?? '') ? padded(s) : undefined;
}

/** The 9-digit 5-4 form of a product NDC in one of FDA's layouts, without dashes (`0002-3229` -> `000023229`); undefined otherwise. */
export function toProductNdc9(raw: string): string | undefined {
  const s = raw.trim();
  if (/^\d{9}$/.test(s)) return s;
  return isProductNdc(s) ? padded(s) : undefined;
}

/** The dashed 5-4-2 printing of an 11-digit NDC (`00002322930` -> `00002-3229-30`), as CMS files print it. */
export const dashed542 = (ndc11: string): string => `${ndc11.slice(0, 5)}-${ndc11.slice(5, 9)}-${ndc11.slice(9)}`;

/** A package NDC as a caller typed it, normalised to `ndc11`; or why it is not one. */
export type PackageNdcInput = { ok: true; ndc11: string } | { ok: false; msg: string };

/**
 * Reads a package NDC typed in any accepted form (`toNdc11`), with the reason when it is not one:
 * ten digits without dashes are refused, since nobody can tell which segment was padded.
 */
export function parsePackageNdc(input: string): PackageNdcInput {
  const ndc11 = toNdc11(input);
  if (ndc11) return { ok: true, ndc11 };
  if (/^\d{10}$/.test(input.trim())) return { ok: false, msg: 'a 10-digit NDC needs its dashes (4-4-2, 5-3-2 or 5-4-1): without them the padded segment is unknown' };
  return { ok: false, msg: 'NDC must be 10 digits dashed 4-4-2, 5-3-2 or 5-4-1, or 11 digits 5-4-2 with or without dashes' };
}

/**
 * The 9-digit product code (no dashes) a search text names, or null: a product NDC dashed in one of
 * FDA's layouts or as 9 digits, or a package NDC in any accepted form (its product part).
 */
export function productNdcOfQuery(q: string): string | null {
  const product = toProductNdc9(q);
  if (product) return product;
  const pkg = toNdc11(q);
  return pkg ? pkg.slice(0, 9) : null;
}
