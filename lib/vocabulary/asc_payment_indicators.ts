/**
 * The ASC payment indicators Addendum AA prints (January 2025: A2, D2, G2, J8, N1, P2, P3, R2), each
 * with its meaning in CMS's Addendum DD1 ("ASC Payment Indicators") of the same release and whether
 * the ASC is paid separately for the code. An indicator a later release adds answers with its code
 * and a pointer to DD1, never a guessed meaning.
 */
export interface AscIndicator {
  meaning: string;
  /** False: packaged into the payment of the procedure it is integral to (no separate payment, amount null). */
  separately_paid: boolean;
}

export const ASC_PAYMENT_INDICATORS: Readonly<Record<string, AscIndicator>> = {
  A2: { meaning: 'surgical procedure on the ASC list in CY 2007; payment based on the OPPS relative payment weight', separately_paid: true },
  D2: { meaning: 'non office-based dental procedure added in CY 2024 or later; payment based on the OPPS relative payment weight', separately_paid: true },
  G2: { meaning: 'non office-based surgical procedure added in CY 2008 or later; payment based on the OPPS relative payment weight', separately_paid: true },
  J8: { meaning: 'device-intensive procedure; paid at the adjusted rate', separately_paid: true },
  N1: { meaning: 'packaged service or item; no separate payment made', separately_paid: false },
  P2: { meaning: 'office-based surgical procedure added to the ASC list in CY 2008 or later with MPFS non-facility PE RVUs; payment based on the OPPS relative payment weight', separately_paid: true },
  P3: { meaning: 'office-based surgical procedure added to the ASC list in CY 2008 or later with MPFS non-facility PE RVUs; payment based on the MPFS non-facility PE RVUs', separately_paid: true },
  R2: { meaning: 'office-based surgical procedure added to the ASC list in CY 2008 or later without MPFS non-facility PE RVUs; payment based on the OPPS relative payment weight', separately_paid: true },
};

/** The meaning of an ASC payment indicator, or where to read it for one this table does not hold. */
export function ascIndicatorMeaning(indicator: string): string {
  return Object.hasOwn(ASC_PAYMENT_INDICATORS, indicator) ? ASC_PAYMENT_INDICATORS[indicator]!.meaning : `payment indicator ${indicator} (see Addendum DD1 of the ASC release)`;
}
