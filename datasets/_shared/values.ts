import type { Issue } from '../../warehouse/errors.js';
import { isoOfYmd } from './dates.js';

/** Cells the publishers use for "no value": blank, `NA`, `.` (OPPS copay), `N/A`. */
const EMPTY = new Set(['', 'NA', 'N/A', '.', 'Not Available']);

/** Strips spaces including U+00A0 (CMS pads codes with NBSP, e.g. `G0465\xa0` in Addendum B 2023). */
export function clean(s: string | undefined | null): string {
  if (s == null || s === '') return '';
  const a = s.charCodeAt(0);
  const b = s.charCodeAt(s.length - 1);
  // Fast path: nothing to trim (most cells).
  if (a > 32 && a !== 0xa0 && b > 32 && b !== 0xa0) return s;
  return s.replace(/^[\s\u00a0]+|[\s\u00a0]+$/g, '');
}

const NUMBER_RE = /^[-+]?(\d+\.?\d*|\.\d+)$/;

/**
 * Parses a published number: `00720.00`, `$1,579.16`, `19.787%`, `1`, `.5`. Returns null for the
 * empty markers above and undefined when the text is not a number (the caller reports the issue).
 */
const PLAIN_RE = /^\d+(?:\.\d+)?$/;

export function toDecimal(raw: string | undefined | null): number | null | undefined {
  if (raw && PLAIN_RE.test(raw)) return Number(raw); // fast path: `0.00`, `00720.00`, `1`
  const s = clean(raw).replace(/[$,%]/g, '');
  if (EMPTY.has(s)) return null;
  if (!NUMBER_RE.test(s)) return undefined;
  return Number(s);
}

/**
 * Collects issues for one source row while converting its cells, so that every bad field of a
 * row is reported at once (`loc: ['row', line, field]`).
 */
export class RowReader {
  readonly issues: Issue[] = [];
  constructor(readonly line: number) {}

  private fail(field: string, msg: string, type: string, input: unknown, ctx?: Record<string, unknown>): void {
    this.issues.push({ loc: ['row', this.line, field], msg, type, input, ...(ctx ? { ctx } : {}) });
  }

  /** A required text cell, trimmed; `pattern` checks its shape. */
  text(field: string, raw: string | undefined, opts: { required?: boolean; pattern?: RegExp; max?: number } = {}): string {
    const v = clean(raw);
    if (opts.required && v === '') {
      this.fail(field, 'Field required', 'missing', raw ?? null);
    } else if (v !== '' && opts.pattern && !opts.pattern.test(v)) {
      this.fail(field, `String should match pattern '${opts.pattern.source}'`, 'string_pattern_mismatch', raw, {
        pattern: opts.pattern.source,
      });
    } else if (opts.max !== undefined && v.length > opts.max) {
      this.fail(field, `String should have at most ${opts.max} characters`, 'string_too_long', raw, { max_length: opts.max });
    }
    return v;
  }

  /** A number cell; null when blank/`NA`/`.`, an issue when it is not a number. */
  number(field: string, raw: string | undefined, opts: { required?: boolean; min?: number; max?: number } = {}): number | null {
    const v = toDecimal(raw);
    if (v === undefined) {
      this.fail(field, 'Input should be a valid number', 'float_parsing', raw);
      return null;
    }
    if (v === null) {
      if (opts.required) this.fail(field, 'Field required', 'missing', raw ?? null);
      return null;
    }
    if (opts.min !== undefined && v < opts.min) {
      this.fail(field, `Input should be greater than or equal to ${opts.min}`, 'greater_than_equal', raw, { ge: opts.min });
    }
    if (opts.max !== undefined && v > opts.max) {
      this.fail(field, `Input should be less than or equal to ${opts.max}`, 'less_than_equal', raw, { le: opts.max });
    }
    return v;
  }

  /** An integer cell (`01` stays 1). */
  integer(field: string, raw: string | undefined, opts: { required?: boolean; min?: number; max?: number } = {}): number | null {
    const v = this.number(field, raw, opts);
    if (v !== null && !Number.isInteger(v)) {
      this.fail(field, 'Input should be a valid integer', 'int_parsing', raw);
      return null;
    }
    return v;
  }

  /** A `YYYYMMDD` or `YYYY-MM-DD` or `MM/DD/YYYY` date cell, returned as `YYYY-MM-DD`. */
  date(field: string, raw: string | undefined, opts: { required?: boolean } = {}): string | null {
    const v = clean(raw);
    if (v === '') {
      if (opts.required) this.fail(field, 'Field required', 'missing', raw ?? null);
      return null;
    }
    const iso = toIsoDate(v);
    if (!iso) this.fail(field, 'Input should be a valid date', 'date_parsing', raw);
    return iso;
  }

  get ok(): boolean {
    return this.issues.length === 0;
  }
}

/** `20260701`, `2026-07-01`, `07/01/2026`, `07-01-2026` to `2026-07-01`; null when not a real date. */
export function toIsoDate(v: string): string | null {
  let y: number, m: number, d: number;
  let mt: RegExpExecArray | null;
  if ((mt = /^(\d{4})(\d{2})(\d{2})$/.exec(v)) || (mt = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v))) {
    [y, m, d] = [Number(mt[1]), Number(mt[2]), Number(mt[3])];
  } else if ((mt = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(v))) {
    [y, m, d] = [Number(mt[3]), Number(mt[1]), Number(mt[2])];
  } else return null;
  return isoOfYmd(y, m, d);
}
