/**
 * Lookups in a plain object (`Record<string, ...>`) by text from outside: a request's path or
 * query, a body field, a cell of a publisher's file. Only the object's own properties answer:
 * `TABLE[key]` also reads its prototype, so `constructor`, `__proto__`, `toString`,
 * `hasOwnProperty` or `valueOf` found a function or `Object.prototype` where a value was expected
 * (`GET /v1/data/changes?dataset=constructor` was a 500). Every such lookup goes through here, or
 * through a `Map`.
 */

/** `table[key]` when `key` is one of the table's own keys, else undefined. */
export function ownValue<V>(table: { readonly [k: string]: V }, key: string | number | null | undefined): V | undefined {
  return key !== null && key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** True when `key` is one of `table`'s own keys (a type guard over the table's key type). */
export function isOwnKey<T extends object>(table: T, key: PropertyKey | null | undefined): key is keyof T {
  return key !== null && key !== undefined && Object.hasOwn(table, key);
}
