/**
 * What a comprehensive APC does not package. On an outpatient hospital claim with a line of status
 * indicator J1, the OPPS pays one amount for the claim on that line and packages every other OPPS service on it, except the services the year's OPPS final rule
 * excludes from comprehensive-APC packaging (Medicare Claims Processing Manual, Pub. 100-04,
 * ch. 4, section 10.2.3). Listed once per span of years with its citation; a year outside every
 * span has no list (nothing is judged packaged).
 */
export interface CompApcExclusions {
  from_year: number;
  /** Inclusive; null while in force. */
  to_year: number | null;
  /** Status indicators never packaged: paid at reasonable cost (F, L), pass-through (G, H), brachytherapy sources (U), not paid under the OPPS (A: ambulance, therapy, mammography, DME paid under their fee schedules; Y: DME). */
  status_indicators: readonly string[];
  /** Revenue codes never packaged: self-administered drugs (0637). */
  revenue_codes: readonly string[];
  /** Kinds of service excluded by what they are rather than by indicator: preventive services (the payment rules' preventive list). */
  preventive: boolean;
  citation: { title: string; url: string; section: string };
}

export const COMP_APC_EXCLUSIONS: readonly CompApcExclusions[] = [
  {
    from_year: 2015,
    to_year: null,
    status_indicators: ['A', 'F', 'G', 'H', 'L', 'U', 'Y'],
    revenue_codes: ['0637'],
    preventive: true,
    citation: {
      title:
        'Medicare Claims Processing Manual, Pub. 100-04, ch. 4, section 10.2.3 (comprehensive APCs): services excluded from comprehensive-APC packaging (ambulance, brachytherapy sources, mammography, preventive services, outpatient therapy, pass-through drugs and devices, self-administered drugs, status indicators F and L, DME); CY2015 OPPS/ASC final rule (79 FR 66798)',
      url: 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c04.pdf',
      section: '10.2.3',
    },
  },
];

/** The exclusions in force in a calendar year, if any. */
export const compApcExclusionsIn = (year: number): CompApcExclusions | undefined => COMP_APC_EXCLUSIONS.find((e) => e.from_year <= year && (e.to_year === null || year <= e.to_year));

/**
 * Status indicators paid once per line whatever the units: J1, a comprehensive APC (the claim's
 * primary service), and J2, which is paid through the comprehensive observation APC only when the
 * claim meets its conditions (else at its own APC).
 */
export const COMPREHENSIVE_SI: readonly string[] = ['J1', 'J2'];

/** The status indicator whose line packages every other OPPS service of its claim (J2 does so only under conditions the 835 does not show). */
export const PACKAGING_SI = 'J1';
