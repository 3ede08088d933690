import { ValidationError } from '../warehouse/errors.js';

/**
 * The two `next_cursor` forms the lists use, opaque to callers (base64url JSON): an offset for a
 * list in a fixed order (the payer directory, the policy listing), a keyset for a feed newest first
 * (items added later never shift a page). A cursor this service did not issue is a 422 at
 * `query.cursor`.
 */

const foreign = (cursor: string) =>
  new ValidationError([{ loc: ['query', 'cursor'], msg: 'cursor is not a next_cursor this service returned', type: 'value_error', input: cursor }]);

function decode(cursor: string): Record<string, unknown> {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (v && typeof v === 'object') return v as Record<string, unknown>;
  } catch {
    /* reported by the caller */
  }
  return {};
}

const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** One page of a list in a fixed order, from an offset cursor, with the cursor of the next page. */
export function offsetPage<T>(all: T[], cursor: string | undefined, limit: number): { page: T[]; next_cursor: string | null } {
  let offset = 0;
  if (cursor !== undefined) {
    const o = decode(cursor).o;
    if (typeof o !== 'number' || !Number.isInteger(o) || o < 0) throw foreign(cursor);
    offset = o;
  }
  return { page: all.slice(offset, offset + limit), next_cursor: offset + limit < all.length ? encode({ o: offset + limit }) : null };
}

/** An item of a feed ordered by `date` descending, then `id` ascending. */
export interface FeedItem {
  date: string;
  id: string;
}

/** `next_cursor` of a feed page: its last item's date and id. */
export const encodeFeedCursor = (i: FeedItem): string => encode({ d: i.date, i: i.id });

/** Items after a feed cursor in the feed's order (date descending, id ascending). */
export function afterCursor<T extends FeedItem>(items: T[], cursor: string | undefined): T[] {
  if (cursor === undefined) return items;
  const c = decode(cursor);
  if (typeof c.d !== 'string' || typeof c.i !== 'string') throw foreign(cursor);
  const d = c.d;
  const id = c.i;
  return items.filter((x) => x.date < d || (x.date === d && x.id > id));
}
