/**
 * Calendar arithmetic on ISO dates (`YYYY-MM-DD`), exact and timezone-free: a date is a count of
 * days since 1970-01-01 (UTC), so daylight saving and local zones never shift a deadline. The one
 * home of date arithmetic (filing and appeal deadlines, prior-auth turnaround, quarterly and
 * yearly versions, date fields of source files), in the lowest layer that needs it.
 */

/** Milliseconds in a day (UTC days have no leap seconds in JavaScript time). */
export const DAY_MS = 86_400_000;
const ISO = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` of a year, month (1-12) and day when they name a real calendar date (2024-02-29 yes, 2025-02-29 no), else null. */
export function isoOfYmd(y: number, m: number, d: number): string | null {
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The UTC calendar date of an instant (`YYYY-MM-DD`). */
export const isoDateOf = (instant: Date): string => fromDays(Math.floor(instant.getTime() / DAY_MS));

/** Days since 1970-01-01 of an ISO date; throws on a malformed or impossible date. */
export function toDays(iso: string): number {
  const m = ISO.exec(iso);
  if (!m) throw new RangeError(`not an ISO date: ${iso}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (isoOfYmd(y, mo, d) === null) throw new RangeError(`not a calendar date: ${iso}`);
  return Date.UTC(y, mo - 1, d) / DAY_MS;
}

/** The ISO date `days` days after 1970-01-01. */
export function fromDays(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}

export const addDays = (iso: string, n: number): string => fromDays(toDays(iso) + n);

/** Whole days from `a` to `b` (negative when `b` is earlier). */
export const daysBetween = (a: string, b: string): number => toDays(b) - toDays(a);

const daysInMonth = (y: number, m0: number) => new Date(Date.UTC(y, m0 + 1, 0)).getUTCDate();

/**
 * Adds calendar months; a day past the end of the target month is clamped to its last day, as
 * "12 months from the date of service" is read: 2024-02-29 + 12 months = 2025-02-28,
 * 2025-01-31 + 1 month = 2025-02-28.
 */
export function addMonths(iso: string, n: number): string {
  toDays(iso);
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const total = y * 12 + (m - 1) + n;
  const ty = Math.floor(total / 12);
  const tm = total - ty * 12;
  const td = Math.min(d, daysInMonth(ty, tm));
  return `${String(ty).padStart(4, '0')}-${String(tm + 1).padStart(2, '0')}-${String(td).padStart(2, '0')}`;
}

/** The last day of the month `iso` falls in. */
export function endOfMonth(iso: string): string {
  const [y, m] = iso.split('-').map(Number) as [number, number];
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(daysInMonth(y, m - 1)).padStart(2, '0')}`;
}

/** 0 = Sunday ... 6 = Saturday. */
export const weekday = (iso: string): number => new Date(toDays(iso) * DAY_MS).getUTCDay();

/** The n-th (1-based) given weekday of a month, or the last one when n is -1. */
function nthWeekday(y: number, m0: number, wd: number, n: number): string {
  if (n > 0) {
    const first = new Date(Date.UTC(y, m0, 1)).getUTCDay();
    const day = 1 + ((wd - first + 7) % 7) + (n - 1) * 7;
    return fromDays(Date.UTC(y, m0, day) / DAY_MS);
  }
  const lastDay = daysInMonth(y, m0);
  const last = new Date(Date.UTC(y, m0, lastDay)).getUTCDay();
  return fromDays(Date.UTC(y, m0, lastDay - ((last - wd + 7) % 7)) / DAY_MS);
}

/** A fixed-date holiday as observed (5 U.S.C. 6103(b)): Saturday -> Friday before, Sunday -> Monday after. */
function observed(iso: string): string {
  const wd = weekday(iso);
  return wd === 6 ? addDays(iso, -1) : wd === 0 ? addDays(iso, 1) : iso;
}

/**
 * Federal holidays of a year as observed (5 U.S.C. 6103(a)): New Year's Day, Martin Luther King
 * Jr.'s Birthday, Washington's Birthday, Memorial Day, Juneteenth (from 2021), Independence Day,
 * Labor Day, Columbus Day, Veterans Day, Thanksgiving Day, Christmas Day. Inauguration Day is a
 * holiday only in the Washington area and is not included.
 */
export function federalHolidays(year: number): Map<string, string> {
  const p = (m: number, d: number) => `${year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  const out = new Map<string, string>([
    [observed(p(1, 1)), "New Year's Day"],
    [nthWeekday(year, 0, 1, 3), 'Martin Luther King Jr. Day'],
    [nthWeekday(year, 1, 1, 3), "Washington's Birthday"],
    [nthWeekday(year, 4, 1, -1), 'Memorial Day'],
    [observed(p(7, 4)), 'Independence Day'],
    [nthWeekday(year, 8, 1, 1), 'Labor Day'],
    [nthWeekday(year, 9, 1, 2), 'Columbus Day'],
    [observed(p(11, 11)), 'Veterans Day'],
    [nthWeekday(year, 10, 4, 4), 'Thanksgiving Day'],
    [observed(p(12, 25)), 'Christmas Day'],
  ]);
  if (year >= 2021) out.set(observed(p(6, 19)), 'Juneteenth National Independence Day');
  // New Year's Day of the next year observed on this year's December 31 (e.g. 2022-01-01 was a Saturday).
  const nextNy = observed(`${year + 1}-01-01`);
  if (nextNy.startsWith(`${year}-`)) out.set(nextNy, "New Year's Day (observed)");
  return out;
}

const holidayCache = new Map<number, Map<string, string>>();
/** The federal holiday `iso` is (as observed), or undefined. */
export function federalHoliday(iso: string): string | undefined {
  const y = Number(iso.slice(0, 4));
  let h = holidayCache.get(y);
  if (!h) holidayCache.set(y, (h = federalHolidays(y)));
  return h.get(iso);
}

/** What moving a deadline to the next business day did, for the answer to state. */
export interface BusinessDayShift {
  date: string;
  /** The unadjusted date when it moved, else null. */
  moved_from: string | null;
  /** Why it moved: `Saturday`, `Sunday` or the holiday's name. */
  reasons: string[];
}

/** `iso`, or the next day that is neither a weekend day nor a federal holiday. */
export function nextBusinessDay(iso: string): BusinessDayShift {
  let d = iso;
  const reasons: string[] = [];
  for (let i = 0; i < 14; i++) {
    const wd = weekday(d);
    const why = wd === 6 ? `${d} is a Saturday` : wd === 0 ? `${d} is a Sunday` : federalHoliday(d) ? `${d} is ${federalHoliday(d)}` : null;
    if (!why) break;
    reasons.push(why);
    d = addDays(d, 1);
  }
  return { date: d, moved_from: d === iso ? null : iso, reasons };
}

/** Adds business days (weekends and federal holidays skipped), for turnaround times. */
export function addBusinessDays(iso: string, n: number): string {
  let d = iso;
  for (let left = n; left > 0; ) {
    d = addDays(d, 1);
    if (weekday(d) !== 0 && weekday(d) !== 6 && !federalHoliday(d)) left--;
  }
  return d;
}

let lastDay = { n: NaN, iso: '' };
/**
 * Today's date (`YYYY-MM-DD`, UTC) from an injected clock. The one way to say "today": the
 * default date of service, the daily answer-cache key. Remembers the last day asked about (a
 * pure memo: `toISOString` per cached request was measurable in `npm run bench cpu`).
 */
export function todayOf(now: Date): string {
  const n = Math.floor(now.getTime() / DAY_MS);
  if (n !== lastDay.n) lastDay = { n, iso: fromDays(n) };
  return lastDay.iso;
}

/** First day of quarter `quarter` (1-4) of `year` (`2026, 3` -> `2026-07-01`). */
export function quarterStart(year: number, quarter: number): string {
  return `${year}-${String((quarter - 1) * 3 + 1).padStart(2, '0')}-01`;
}

/** The quarter (1-4) an ISO date falls in. */
const quarterOf = (iso: string): number => Math.floor((Number(iso.slice(5, 7)) - 1) / 3) + 1;

/** First day of the quarter that contains `iso` (`2026-08-15` -> `2026-07-01`). */
export const quarterStartOf = (iso: string): string => quarterStart(Number(iso.slice(0, 4)), quarterOf(iso));

/** First day of the quarter after the one that contains `iso` (`2026-10-01` -> `2027-01-01`). */
export function nextQuarterStart(iso: string): string {
  const y = Number(iso.slice(0, 4));
  const q = quarterOf(iso);
  return q === 4 ? quarterStart(y + 1, 1) : quarterStart(y, q + 1);
}

/** Last day of the quarter that contains `iso` (`2026-08-15` -> `2026-09-30`, `2024-02-29` -> `2024-03-31`). */
export const quarterEndOf = (iso: string): string => addDays(nextQuarterStart(iso), -1);

/** The calendar quarter's label (`2026Q3`) for an ISO date. */
export const quarterLabel = (iso: string): string => `${iso.slice(0, 4)}Q${quarterOf(iso)}`;

const MONTH_NAMES = ['JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY', 'JUNE', 'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER'];
const MONTH_WORD = new RegExp(`(?<![A-Za-z])(${MONTH_NAMES.join('|')}|${MONTH_NAMES.map((m) => m.slice(0, 3)).join('|')})(?![A-Za-z])`, 'i');

/** The month a name or title spells as a word (`January`, `Jan`, any case; `Market` is none), 1-12; undefined when none. */
export function monthNamed(text: string): number | undefined {
  const m = MONTH_WORD.exec(text);
  return m ? MONTH_NAMES.findIndex((n) => n.startsWith(m[1]!.toUpperCase())) + 1 : undefined;
}

/**
 * The version of a CMS release published by month (the OPPS and ASC addenda): `2025-01`, effective
 * 2025-01-01; a year alone (no month named) is `2025`, effective January 1.
 */
export function monthRelease(year: number, month?: number): { label: string; effective_date: string } {
  if (month === undefined) return { label: String(year), effective_date: `${year}-01-01` };
  const mm = String(month).padStart(2, '0');
  return { label: `${year}-${mm}`, effective_date: `${year}-${mm}-01` };
}

/** `CY 2025` from a title line of the first lines (`Addendum B.- OPPS Payment by HCPCS Code for CY 2025`), matched by `title`. */
export function titleCalendarYear(lines: readonly string[], title: RegExp): number | undefined {
  for (const l of lines.slice(0, 10)) {
    if (!title.test(l)) continue;
    const m = /CY\s*(20\d{2})/i.exec(l.slice(l.search(title)));
    if (m) return Number(m[1]);
  }
  return undefined;
}
