/**
 * Exact decimal arithmetic for payment rules and remittance amounts (lib/README.md). Published
 * factors are short decimals (RVU 2 places, GPCI 3, conversion factor 4, wage index 4); multiplying
 * them as scaled integers keeps every digit, so rounding to cents happens once, at the end, on the
 * exact value (half away from zero, as CMS pricers round), never on binary-float noise.
 */
export class Dec {
  private constructor(
    readonly units: bigint,
    readonly scale: number,
  ) {}

  static readonly ZERO = new Dec(0n, 0);

  /**
   * A decimal the caller has already checked is plain (`-?digits[.digits]`, as an X12 amount is):
   * no second parse. Anything else is a RangeError, as `of` would give.
   */
  static ofPlain(s: string): Dec {
    const dot = s.indexOf('.');
    if (dot < 0) return new Dec(BigInt(s), 0);
    const frac = s.slice(dot + 1);
    const int = s.slice(0, dot);
    return new Dec(BigInt(`${int === '' || int === '-' ? `${int}0` : int}${frac}`), frac.length);
  }

  static of(v: number | string | Dec): Dec {
    if (v instanceof Dec) return v;
    const s = typeof v === 'number' ? numberToPlain(v) : v.trim();
    const m = /^([-+]?)(\d*)(?:\.(\d*))?$/.exec(s);
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new RangeError(`not a decimal: ${s}`);
    const frac = m[3] ?? '';
    const units = BigInt(`${m[1] === '-' ? '-' : ''}${m[2] || '0'}${frac}`);
    return new Dec(units, frac.length);
  }

  private align(o: Dec): [bigint, bigint, number] {
    if (this.scale === o.scale) return [this.units, o.units, this.scale];
    const scale = Math.max(this.scale, o.scale);
    return [this.units * 10n ** BigInt(scale - this.scale), o.units * 10n ** BigInt(scale - o.scale), scale];
  }

  add(v: number | string | Dec): Dec {
    const [a, b, s] = this.align(Dec.of(v));
    return new Dec(a + b, s);
  }

  sub(v: number | string | Dec): Dec {
    const [a, b, s] = this.align(Dec.of(v));
    return new Dec(a - b, s);
  }

  mul(v: number | string | Dec): Dec {
    const o = Dec.of(v);
    return new Dec(this.units * o.units, this.scale + o.scale);
  }

  /**
   * `this / divisor` rounded half away from zero to `places` decimals, computed exactly (a per
   * diem is a payment divided by an average length of stay: the one division payment rules need).
   */
  divRound(divisor: number | string | Dec, places: number): Dec {
    const d = Dec.of(divisor);
    if (d.units === 0n) throw new RangeError('division by zero');
    // this.units/10^s1 / (d.units/10^s2) = this.units * 10^(s2 + places - s1) / d.units, in units of 10^-places.
    const shift = d.scale + places - this.scale;
    let num = this.units * (shift >= 0 ? 10n ** BigInt(shift) : 1n);
    let den = d.units * (shift < 0 ? 10n ** BigInt(-shift) : 1n);
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const neg = num < 0n;
    const abs = neg ? -num : num;
    let q = abs / den;
    if ((abs % den) * 2n >= den) q += 1n;
    return new Dec(neg ? -q : q, places);
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `v`. */
  compare(v: number | string | Dec): number {
    const [a, b] = this.align(Dec.of(v));
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Rounds half away from zero to `places` decimals. */
  round(places: number): Dec {
    if (this.scale <= places) return this;
    const div = 10n ** BigInt(this.scale - places);
    const neg = this.units < 0n;
    const abs = neg ? -this.units : this.units;
    let q = abs / div;
    if ((abs % div) * 2n >= div) q += 1n;
    return new Dec(neg ? -q : q, places);
  }

  toNumber(): number {
    // One IEEE division of two exact integers is correctly rounded, as parsing the decimal text is.
    if (this.units < 9007199254740992n && this.units > -9007199254740992n && this.scale <= 22) return Number(this.units) / 10 ** this.scale;
    return Number(this.toString());
  }

  toString(): string {
    const neg = this.units < 0n;
    const digits = (neg ? -this.units : this.units).toString().padStart(this.scale + 1, '0');
    const int = digits.slice(0, digits.length - this.scale);
    const frac = this.scale ? `.${digits.slice(digits.length - this.scale)}` : '';
    return `${neg ? '-' : ''}${int}${frac}`;
  }
}

/** Shortest round-trip text of a double, without exponent (1e-7 becomes 0.0000001). */
function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  const s = String(n);
  if (!/e/i.test(s)) return s;
  // 1e21 and above: toFixed writes an exponent too, and such a number is an integer.
  if (Math.abs(n) >= 1e21) return BigInt(n).toString();
  return n.toFixed(20).replace(/\.?0+$/, '');
}

/** Rounds an exact value to cents and returns it as a JSON number. */
export function toCents(v: Dec): number {
  return v.round(2).toNumber();
}

