import { SOURCES, type PaymentRule } from './rule.js';

const CITE_PACKAGED = '42 CFR 419.2(b)';

/**
 * OPPS status indicator N (items and services packaged into APC rates): Addendum B prints no rate,
 * and the service is paid within the APC payment of the primary service it is billed with, so it
 * is paid 0 separately (42 CFR 419.2(b) lists what the OPPS payment of a service packages).
 */
export const oppsPackaged: PaymentRule = {
  id: 'opps_packaged',
  modifiers: [],
  applies_to: 'a code with OPPS status indicator N (packaged)',
  does: 'no separate OPPS payment: 0, its payment is in the APC payment of the primary service',
  block: 'outpatient_facility',
  citation: { title: '42 CFR 419.2(b): the OPPS payment of a service packages its supplies, drugs and ancillary services; Addendum D1 status indicator N', url: SOURCES.cfr(419, '2') },
  oppsUnpriced({ code, status_indicator }) {
    if (status_indicator !== 'N') return null;
    return {
      warning: `outpatient_facility: ${code} has OPPS status indicator N (packaged): no separate payment, 0; its payment is in the APC payment of the primary service it is billed with (${CITE_PACKAGED})`,
      calculation: `outpatient_facility: status indicator N, packaged: paid 0 separately, within the primary service's APC (${CITE_PACKAGED})`,
    };
  },
};
