/**
 * Dollars as a person reads them in a sentence or a page: thousands separators and the sign
 * before the dollar sign (`$211,366.97`, `-$1.08`). Amounts in the answers' JSON and in CSV stay
 * plain decimals; this is only for words.
 */
export function dollars(n: number): string {
  const cents = Math.round(Math.abs(n) * 100);
  const whole = Math.floor(cents / 100).toLocaleString('en-US');
  const text = `$${whole}.${String(cents % 100).padStart(2, '0')}`;
  return n < 0 && cents !== 0 ? `-${text}` : text;
}

/** "1 claim", "2 claims", "1,000 lines": a count with its noun, plural unless exactly one. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
