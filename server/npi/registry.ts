import { z } from 'zod';

/**
 * The live NPPES NPI Registry API v2.1 (`GET <url>&number=<npi>`), behind an interface so tests
 * and replicas inject their own. The API answers HTTP 200 for everything it can parse: a match
 * (`result_count` >= 1), no match (`result_count: 0`), or `Errors[]` for a request it refuses.
 */

/** One API result as the registry sends it (fields the mapper reads; the rest is kept in `raw`). */
const AddressSchema = z.looseObject({
  address_purpose: z.string().optional(),
  address_1: z.string().optional(),
  address_2: z.string().optional(),
  city: z.string().optional(),
  state: z.string().optional(),
  postal_code: z.string().optional(),
  telephone_number: z.string().optional(),
  fax_number: z.string().optional(),
});
export const ApiResultSchema = z.looseObject({
  enumeration_type: z.string(),
  // Numbers in the 2019 recordings, strings in later builds: accept both.
  number: z.union([z.number(), z.string()]).transform((v) => String(v)),
  basic: z.looseObject({
    first_name: z.string().optional(),
    last_name: z.string().optional(),
    middle_name: z.string().optional(),
    organization_name: z.string().optional(),
    name: z.string().optional(),
    credential: z.string().optional(),
    gender: z.string().optional(),
    enumeration_date: z.string().optional(),
    last_updated: z.string().optional(),
    status: z.string().optional(),
    deactivation_date: z.string().optional(),
  }),
  addresses: z.array(AddressSchema).default([]),
  taxonomies: z.array(z.looseObject({ code: z.string(), desc: z.string().optional(), primary: z.boolean().optional(), state: z.string().optional(), license: z.string().optional() })).default([]),
});
export type ApiResult = z.output<typeof ApiResultSchema>;

const ApiErrorsSchema = z.looseObject({ Errors: z.array(z.looseObject({ field: z.string().optional(), number: z.string().optional(), description: z.string().optional() })) });
const ApiResultsSchema = z.looseObject({ result_count: z.number(), results: z.array(z.unknown()) });

export type RegistryAnswer =
  | { kind: 'found'; result: ApiResult; raw: Record<string, unknown> }
  | { kind: 'not_found' }
  /** The registry could not answer (timeout, network, 5xx, an `Errors[]` body, a body we cannot read). */
  | { kind: 'unavailable'; reason: string };

export interface NppesRegistry {
  lookup(npi: string): Promise<RegistryAnswer>;
}

/** Reads one registry response body (HTTP 200): a result for `npi`, no match, or why not. */
export function readRegistryBody(body: unknown, npi: string): RegistryAnswer {
  const errors = ApiErrorsSchema.safeParse(body);
  if (errors.success) {
    const first = errors.data.Errors[0];
    return { kind: 'unavailable', reason: `the registry refused the request: ${first?.description ?? 'error'}${first?.number ? ` (${first.number})` : ''}` };
  }
  const parsed = ApiResultsSchema.safeParse(body);
  if (!parsed.success) return { kind: 'unavailable', reason: 'the registry answered a body that is not an NPI Registry API v2.1 response' };
  for (const r of parsed.data.results) {
    const one = ApiResultSchema.safeParse(r);
    if (one.success && one.data.number === npi) return { kind: 'found', result: one.data, raw: r as Record<string, unknown> };
  }
  return { kind: 'not_found' };
}

export interface HttpRegistryOptions {
  /** `RCM_NPPES_URL`: the API base with `version=2.1`. */
  url: string;
  timeoutMs: number;
  /** Consecutive failures that open the circuit, and how long it stays open. */
  failuresToOpen: number;
  openMs: number;
  now?: () => number;
  fetch?: typeof fetch;
  /** The largest answer read (default 1 MB: one NPI's record is a few KB). */
  maxBytes?: number;
}

/** Reads at most `max` bytes of a response body as JSON; null past the cap or for a body that is not JSON. */
async function jsonCapped(res: Response, max: number): Promise<{ json: unknown } | { tooLarge: true }> {
  if (Number(res.headers.get('content-length') ?? 0) > max) {
    await res.body?.cancel().catch(() => undefined);
    return { tooLarge: true };
  }
  const reader = res.body?.getReader();
  if (!reader) return { json: null };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  try {
    return { json: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { json: null };
  }
}


/**
 * The registry over HTTP with a time limit and a circuit breaker: after `failuresToOpen`
 * consecutive failures it answers `unavailable` at once for `openMs` (no call), then lets one call
 * through; a success closes it. So an outage costs callers one timeout each, not one per request.
 */
export class HttpNppesRegistry implements NppesRegistry {
  private failures = 0;
  private openUntil = 0;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;

  constructor(private readonly o: HttpRegistryOptions) {
    this.now = o.now ?? (() => Date.now());
    this.fetch = o.fetch ?? fetch;
  }

  /** Open (failing fast) until this time, or null. */
  get openUntilMs(): number | null {
    return this.openUntil > this.now() ? this.openUntil : null;
  }

  async lookup(npi: string): Promise<RegistryAnswer> {
    if (this.openUntil > this.now()) return { kind: 'unavailable', reason: `the NPPES registry is not being called for ${Math.ceil((this.openUntil - this.now()) / 1000)} s after ${this.failures} failures in a row (circuit open)` };
    const url = new URL(this.o.url);
    url.searchParams.set('number', npi);
    let answer: RegistryAnswer;
    try {
      // No redirect is followed (a redirect elsewhere would answer with another server's record),
      // and no more than maxBytes of an answer is read.
      const res = await this.fetch(url, { signal: AbortSignal.timeout(this.o.timeoutMs), headers: { accept: 'application/json' }, redirect: 'manual' });
      const max = this.o.maxBytes ?? 1024 * 1024;
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel().catch(() => undefined);
        answer = { kind: 'unavailable', reason: `the registry answered a redirect (HTTP ${res.status}), which is not followed` };
      } else if (!res.ok) answer = { kind: 'unavailable', reason: `the registry answered HTTP ${res.status}` };
      else {
        const body = await jsonCapped(res, max);
        answer = 'tooLarge' in body ? { kind: 'unavailable', reason: `the registry's answer is larger than ${max} bytes; it was not read` } : readRegistryBody(body.json, npi);
      }
    } catch (e) {
      const name = (e as Error)?.name;
      answer = { kind: 'unavailable', reason: name === 'TimeoutError' ? `the registry did not answer within ${this.o.timeoutMs} ms` : 'the registry could not be reached' };
    }
    if (answer.kind === 'unavailable') {
      if (++this.failures >= this.o.failuresToOpen) this.openUntil = this.now() + this.o.openMs;
    } else {
      this.failures = 0;
      this.openUntil = 0;
    }
    return answer;
  }
}
