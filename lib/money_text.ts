/**
 * Dollars as a person reads them in a sentence or a page: thousands separators and the sign
 * before the dollar sign (`$211,366.97`, `-$1.08`). Amounts in the answers' JSON and in CSV stay
 * plain decimals; this is only for words.
 */
export function dollars(n: number): string {
  const cents = Math.round(Math.abs(n) * 100);
  const whole = grouped(Math.floor(cents / 100));
  const text = `$${whole}.${String(cents % 100).padStart(2, '0')}`;
  return n < 0 && cents !== 0 ? `-${text}` : text;
}

/** "1 claim", "2 claims", "1,000 lines": a count with its noun, plural unless exactly one. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${grouped(n)} ${n === 1 ? one : many}`;
}

/**
 * A whole number with commas every three digits, as `toLocaleString('en-US')` writes it, without
 * loading ICU's locale data (13 ms of a short CLI run on its first call).
 */
export function grouped(n: number): string {
  const s = String(Math.abs(Math.trunc(n)));
  return `${n < 0 && Math.trunc(n) !== 0 ? '-' : ''}${s.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}
