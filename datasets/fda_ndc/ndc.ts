/**
 * National Drug Codes. FDA assigns 10 digits in three dashed segments of variable length
 * (labeler-product-package: 4-4-2, 5-3-2 or 5-4-1), so the dashes carry information: `0002-3229-30`
 * and `00023-229-30` are different packages. Claims (NCPDP, HIPAA 837) use the 11-digit 5-4-2 form,
 * each segment left-padded with zeros. We store the dashed form as published with its segment
 * lengths and derive the 11-digit form; FDA's 12-digit 6-4-2 format (final rule of 2026, effective
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

/**
 * The 11-digit 5-4-2 form of a dashed package NDC (`0002-3229-30` -> `00002-3229-30`), or the 9-digit
 * 5-4 form of a product NDC (`0002-3229` -> `00002-3229`): each segment padded.
 */
export function toNdc11(dashed: string): string {
  return dashed
    .split('-')
    .map((s, i) => s.padStart(WIDTH[i]!, '0'))
    .join('-');
}

/** A package NDC as a caller typed it, normalised; or why it is not one. */
export type PackageNdcInput = { ok: true; ndc11: string } | { ok: false; msg: string };

/**
 * Reads a package NDC typed in any accepted form: 10 digits dashed 4-4-2, 5-3-2 or 5-4-1, or 11
 * digits 5-4-2 with or without dashes. Ten digits without dashes are refused: without the dashes
 * nobody can tell which segment was padded.
 */
export function parsePackageNdc(input: string): PackageNdcInput {
  const s = input.trim();
  if (/^\d{11}$/.test(s)) return { ok: true, ndc11: `${s.slice(0, 5)}-${s.slice(5, 9)}-${s.slice(9)}` };
  const seg = segmentsOf(s);
  if (seg === '5-4-2') return { ok: true, ndc11: s };
  if (seg && (PACKAGE_LAYOUTS as readonly string[]).includes(seg)) return { ok: true, ndc11: toNdc11(s) };
  if (/^\d{10}$/.test(s)) return { ok: false, msg: 'a 10-digit NDC needs its dashes (4-4-2, 5-3-2 or 5-4-1): without them the padded segment is unknown' };
  return { ok: false, msg: 'NDC must be 10 digits dashed 4-4-2, 5-3-2 or 5-4-1, or 11 digits 5-4-2 with or without dashes' };
}

/**
 * The 9-digit 5-4 product code a search text names, or null: a product NDC dashed in one of FDA's
 * layouts or as 9 digits (5-4), or a package NDC in any accepted form (its product part).
 */
export function productNdcOfQuery(q: string): string | null {
  const s = q.trim();
  if (/^\d{9}$/.test(s)) return `${s.slice(0, 5)}-${s.slice(5)}`;
  const seg = segmentsOf(s);
  if (seg && (PRODUCT_LAYOUTS as readonly string[]).includes(seg)) return toNdc11(s);
  const pkg = parsePackageNdc(s);
  return pkg.ok ? pkg.ndc11.slice(0, 10) : null;
}
