/**
 * USPS codes for the state names CMS prints in `25LOCCO.csv` (`ALABAMA `, `HAWAII/GUAM`,
 * `VIRGIN ISLANDS `) and in county lists (`... IN VIRGINIA`), so rows join the 2-letter
 * `state` of the GPCI, ZIP5 and facility files.
 */
export const STATE_CODES: Readonly<Record<string, string>> = {
  ALABAMA: 'AL', ALASKA: 'AK', ARIZONA: 'AZ', ARKANSAS: 'AR', CALIFORNIA: 'CA', COLORADO: 'CO',
  CONNECTICUT: 'CT', DELAWARE: 'DE', 'DISTRICT OF COLUMBIA': 'DC', FLORIDA: 'FL', GEORGIA: 'GA',
  HAWAII: 'HI', 'HAWAII/GUAM': 'HI', GUAM: 'GU', IDAHO: 'ID', ILLINOIS: 'IL', INDIANA: 'IN', IOWA: 'IA',
  KANSAS: 'KS', KENTUCKY: 'KY', LOUISIANA: 'LA', MAINE: 'ME', MARYLAND: 'MD', MASSACHUSETTS: 'MA',
  MICHIGAN: 'MI', MINNESOTA: 'MN', MISSISSIPPI: 'MS', MISSOURI: 'MO', MONTANA: 'MT', NEBRASKA: 'NE',
  NEVADA: 'NV', 'NEW HAMPSHIRE': 'NH', 'NEW JERSEY': 'NJ', 'NEW MEXICO': 'NM', 'NEW YORK': 'NY',
  'NORTH CAROLINA': 'NC', 'NORTH DAKOTA': 'ND', OHIO: 'OH', OKLAHOMA: 'OK', OREGON: 'OR',
  PENNSYLVANIA: 'PA', 'PUERTO RICO': 'PR', 'RHODE ISLAND': 'RI', 'SOUTH CAROLINA': 'SC',
  'SOUTH DAKOTA': 'SD', TENNESSEE: 'TN', TEXAS: 'TX', UTAH: 'UT', VERMONT: 'VT', 'VIRGIN ISLANDS': 'VI',
  VIRGINIA: 'VA', WASHINGTON: 'WA', 'WEST VIRGINIA': 'WV', WISCONSIN: 'WI', WYOMING: 'WY',
  'AMERICAN SAMOA': 'AS', 'NORTHERN MARIANA ISLANDS': 'MP',
};

/** The USPS code for a printed state name (case and spacing ignored); undefined when unknown. */
export function toStateCode(name: string): string | undefined {
  const n = name.trim().replace(/\s+/g, ' ').toUpperCase();
  if (/^[A-Z]{2}$/.test(n) && Object.values(STATE_CODES).includes(n)) return n;
  return STATE_CODES[n];
}

/** County names that differ between publishers beyond spelling (Care Compare left, LOCCO right). */
const COUNTY_ALIASES: Record<string, string> = {
  // 25LOCCO lists `DADE AND MONROE`; Care Compare says MIAMI-DADE.
  DADE: 'MIAMIDADE',
  // Care Compare's County/Parish for every DC hospital is `THE DISTRICT`.
  THEDISTRICT: 'DISTRICTOFCOLUMBIA',
};

/**
 * A county name reduced to a matching key: upper case, no `COUNTY`/`PARISH`/`CNTY` suffix, `SAINT`
 * as `ST`, and no spaces or punctuation, so Care Compare's `DE KALB`, `DU PAGE`, `PRINCE GEORGES`
 * meet 25LOCCO's `DEKALB`, `DUPAGE`, `PRINCE GEORGE'S`; plus the aliases above.
 */
export function normCounty(name: string): string {
  let n = name.toUpperCase().replace(/\s+/g, ' ').trim();
  n = n.replace(/\s+(COUNTY|PARISH|CNTY|BOROUGH|CENSUS AREA|MUNICIPALITY)$/, '');
  n = n.replace(/^SAINT\s+/, 'ST ');
  n = n.replace(/[^A-Z0-9]/g, '');
  return COUNTY_ALIASES[n] ?? n;
}
