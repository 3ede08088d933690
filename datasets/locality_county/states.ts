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

/**
 * Normalises a county name for matching across publishers: upper case, no `COUNTY`/`PARISH`/
 * `CNTY` suffix, `SAINT` as `ST.`, CMS's `DADE` as Care Compare's `MIAMI-DADE` (25LOCCO lists
 * `DADE AND MONROE`), single spaces.
 */
export function normCounty(name: string): string {
  let n = name.toUpperCase().replace(/\s+/g, ' ').trim();
  n = n.replace(/\s+(COUNTY|PARISH|CNTY|BOROUGH|CENSUS AREA|MUNICIPALITY)$/, '');
  n = n.replace(/^SAINT\s+/, 'ST. ').replace(/^ST\s+/, 'ST. ');
  if (n === 'DADE') n = 'MIAMI-DADE';
  return n;
}
