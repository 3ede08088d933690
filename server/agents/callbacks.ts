import { createHmac } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { AgentJob, DueCallback, JobQueue } from '../../warehouse/jobs.js';
import type { KeyType } from '../../warehouse/tenant_state.js';
import type { AgentResult } from './job_schemas.js';

/** The spec's callback attempts: immediately, then about 2 s and about 8 s after the previous one ended. */
export const RETRY_DELAYS_MS = [2_000, 8_000] as const;
export const MAX_ATTEMPTS = 3;
/** A receiver must answer within 10 s. */
export const CALLBACK_TIMEOUT_MS = 10_000;
/** A 429's Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 8_000;

/** `evt_` followed by the 32 hex digits of the job UUID: stable per job, so receivers deduplicate. */
export function eventId(jobId: string): string {
  return `evt_${jobId.replace(/-/g, '').toLowerCase()}`;
}

/**
 * A job as an event (spec "Events"): the callback body, and the fields the job poll shares with
 * it, each meaning the same in both. `created_at` is when the job was submitted, `finished_at`
 * when it finished; `id` and `type` are null until then.
 */
export function jobEvent(job: AgentJob) {
  const finished = job.status === 'completed' || job.status === 'failed';
  return {
    id: finished ? eventId(job.id) : null,
    type: finished ? (job.status === 'completed' ? ('agent.job.completed' as const) : ('agent.job.failed' as const)) : null,
    created_at: job.created_at,
    finished_at: job.finished_at,
    job_id: job.id,
    status: job.status,
    agent_type: job.agent_type,
    // Stored as the agent returned it: each agent's return type is its result schema (schemas.ts).
    result: (job.result ?? null) as AgentResult,
    error: job.error ?? null,
    latency_ms: job.latency_ms,
  };
}

/** The callback body: the job's event, serialized once at completion so every attempt sends the same bytes. */
export function callbackBody(job: AgentJob): string {
  return JSON.stringify(jobEvent(job));
}

/** `X-SVC-Signature` value: `sha256=` + lowercase hex HMAC-SHA256 of the exact bytes sent. */
export function signature(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

// ---------------------------------------------------------------------------------------------
// Where a callback may go

/**
 * The IPv4 addresses inside an IPv6 one, decoded the way each transition mechanism embeds them:
 * IPv4-mapped (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`), IPv4-compatible (`::/96`,
 * deprecated), 6to4 (`2002::/16`), NAT64 (`64:ff9b::/96` and the local-use `64:ff9b:1::/48`, RFC
 * 6052's layout with the `u` octet skipped) and Teredo (`2001::/32`: server, and the obfuscated
 * client). A callback to any of them reaches that IPv4 address, so it is checked too.
 */
function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = a.toByteArray();
  const at = (i: number) => new ipaddr.IPv4(b.slice(i, i + 4));
  switch (a.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [at(12)];
    case 'rfc6052':
      return b[4] === 0 && b[5] === 0 ? [at(12)] : [new ipaddr.IPv4([b[6]!, b[7]!, b[9]!, b[10]!])];
    case '6to4':
      return [at(2)];
    case 'teredo':
      return [at(4), new ipaddr.IPv4(b.slice(12, 16).map((x) => x ^ 0xff))];
    default:
      // IPv4-compatible `::a.b.c.d` (but not `::` and `::1`).
      return b.slice(0, 12).every((x) => x === 0) && (b[12]! | b[13]! | b[14]!) !== 0 ? [at(12)] : [];
  }
}

/** IPv6 ranges that only carry an embedded IPv4 address: allowed when every embedded address is. */
const EMBEDDING: ReadonlySet<string> = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

/**
 * Why an address may not receive a callback (null when it may). Every special-purpose range the
 * IANA registries mark not globally reachable is refused, using ipaddr.js's range table (private,
 * loopback, link-local and cloud metadata, CGNAT, documentation 192.0.2/24, 198.51.100/24,
 * 203.0.113/24 and 2001:db8::/32, benchmarking 198.18/15, unique-local, multicast, reserved ...),
 * for the address itself and for every IPv4 address it embeds. Loopback is allowed outside
 * production only (local receivers in development).
 */
export function addressRefusal(ip: string, allowLoopback: boolean): string | null {
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
  const a = ipaddr.parse(ip);
  const embedded = a.kind() === 'ipv6' ? embeddedV4(a as ipaddr.IPv6) : [];
  // The local-use NAT64 prefix (RFC 8215) is not globally reachable whatever it embeds.
  if (a.kind() === 'ipv6' && a.toString().startsWith('64:ff9b:1:')) return `${ip} is in the local-use NAT64 prefix 64:ff9b:1::/48, not globally reachable`;
  for (const t of [a, ...embedded]) {
    const range = t.range();
    if (range === 'loopback') {
      if (!allowLoopback) return `${ip} is a loopback address (allowed only outside production)`;
      continue;
    }
    if (range === 'unicast' || (t === a && EMBEDDING.has(range) && embedded.length > 0)) continue;
    return `${ip} is ${t === a ? '' : `an address embedding ${t.toString()}, `}in a special-purpose range that is not globally reachable (${range}): private, link-local, metadata, documentation or reserved addresses never receive callbacks`;
  }
  return null;
}

export interface CallbackPolicy {
  /** `RCM_ENV=production`: loopback and plain HTTP are refused for every key. */
  production: boolean;
  /** `CALLBACK_URL_ALLOWED_HOSTS` (lower case; `*.example.com` matches subdomains); empty allows any public host. */
  allowedHosts: string[];
}

/** Resolves a host name to addresses (injected: tests never use real DNS). */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

const LOCAL_HTTP_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The URL checks that need no DNS; a reason string when refused. */
export function urlRefusal(raw: string, policy: CallbackPolicy, liveKey: boolean): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'callback_url is not a valid URL';
  }
  const production = policy.production || liveKey;
  const host = u.hostname.toLowerCase();
  if (u.username || u.password) return 'callback_url must not carry credentials';
  if (u.protocol === 'http:') {
    if (production || !LOCAL_HTTP_HOSTS.has(host)) return 'callback_url must use https (plain http only to localhost or 127.0.0.1, and only outside production)';
  } else if (u.protocol !== 'https:') {
    return 'callback_url must use https';
  }
  if (policy.allowedHosts.length > 0) {
    const ok = policy.allowedHosts.some((a) => (a.startsWith('*.') ? host.endsWith(a.slice(1)) && host.length > a.length - 1 : host === a));
    if (!ok) return `callback host ${host} is not in CALLBACK_URL_ALLOWED_HOSTS`;
  }
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(literal)) return addressRefusal(literal, !production);
  if (host === 'localhost' && production) return 'localhost is allowed only outside production';
  return null;
}

/**
 * Resolves the callback host and checks every address it resolves to; returns the one to connect
 * to (the connection then goes to that very address, so DNS cannot change between check and use).
 */
export async function resolveTarget(raw: string, policy: CallbackPolicy, liveKey: boolean, resolve: Resolver): Promise<{ address: string; family: 4 | 6 } | { refusal: string }> {
  const pre = urlRefusal(raw, policy, liveKey);
  if (pre) return { refusal: pre };
  const u = new URL(raw);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const allowLoopback = !(policy.production || liveKey);
  const family = isIP(host);
  if (family) return { address: host, family: family as 4 | 6 };
  const found = host.toLowerCase() === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : await resolve(host);
  if (found.length === 0) return { refusal: `callback host ${host} does not resolve` };
  for (const a of found) {
    const why = addressRefusal(a.address, allowLoopback);
    if (why) return { refusal: `callback host ${host} resolves to ${why}` };
  }
  return { address: found[0]!.address, family: found[0]!.family === 6 ? 6 : 4 };
}

// ---------------------------------------------------------------------------------------------
// Sending

export interface CallbackResponse {
  status: number;
  retryAfter: string | undefined;
}

/** Posts bytes to a URL at a given address; injected so tests use their own receiver. */
export type CallbackHttp = (url: URL, target: { address: string; family: 4 | 6 }, body: string, headers: Record<string, string>, timeoutMs: number) => Promise<CallbackResponse>;

/**
 * The real sender: `http`/`https` with `lookup` pinned to the checked address (TLS still
 * verifies the URL's host name), a whole-request timeout, and no redirect following.
 */
export const nodeCallbackHttp: CallbackHttp = (url, target, body, headers, timeoutMs) =>
  new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        // Both lookup forms: Node asks for `{all: true}` (an address list) when it may race families.
        lookup: (_host, opts, cb) => {
          if ((opts as { all?: boolean }).all) (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
          else (cb as (e: null, a: string, f: number) => void)(null, target.address, target.family);
        },
        servername: url.protocol === 'https:' && !isIP(url.hostname) ? url.hostname : undefined,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume(); // the answer body is not needed
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });

export type AttemptResult =
  | { outcome: 'delivered'; http_status: number }
  | { outcome: 'retry'; http_status: number | null; error: string; retryAfterMs: number | null }
  | { outcome: 'failed'; http_status: number | null; error: string };

/** Seconds (or an HTTP date) of a Retry-After header, in ms from `now`. */
function retryAfterMs(v: string | undefined, now: Date): number | null {
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - now.getTime());
}

/** One delivery attempt, classified by the spec's rules: retry on timeout, connection error, 5xx and 429; never on other statuses. */
export async function attemptDelivery(
  d: { url: string; secret: string | null; body: string; key_type: KeyType },
  o: { policy: CallbackPolicy; resolve: Resolver; http: CallbackHttp; now: () => Date; userAgent: string },
): Promise<AttemptResult> {
  const target = await resolveTarget(d.url, o.policy, d.key_type === 'live', o.resolve).catch((e: Error) => ({ transient: e.message }));
  if ('transient' in target) return { outcome: 'retry', http_status: null, error: `DNS: ${target.transient}`, retryAfterMs: null };
  if ('refusal' in target) return { outcome: 'failed', http_status: null, error: `refused: ${target.refusal}` };
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': o.userAgent };
  if (d.secret) headers['x-svc-signature'] = signature(d.body, d.secret);
  try {
    const res = await o.http(new URL(d.url), target, d.body, headers, CALLBACK_TIMEOUT_MS);
    if (res.status >= 200 && res.status < 300) return { outcome: 'delivered', http_status: res.status };
    if (res.status === 429 || res.status >= 500) {
      return { outcome: 'retry', http_status: res.status, error: `receiver answered ${res.status}`, retryAfterMs: res.status === 429 ? retryAfterMs(res.retryAfter, o.now()) : null };
    }
    return { outcome: 'failed', http_status: res.status, error: `receiver answered ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}; not retried` };
  } catch (e) {
    return { outcome: 'retry', http_status: null, error: (e as Error).message || 'connection error', retryAfterMs: null };
  }
}

/** When the next attempt after attempt `n` (1-based) that ended at `ended` is due. */
export function nextAttemptAt(n: number, ended: Date, retryAfter: number | null): Date {
  const base: number = RETRY_DELAYS_MS[Math.min(n, RETRY_DELAYS_MS.length) - 1]!;
  const wait = retryAfter === null ? base : Math.max(base, Math.min(retryAfter, MAX_RETRY_AFTER_MS));
  return new Date(ended.getTime() + wait);
}

/**
 * One attempt of one due callback, recorded in the queue with what happens next: delivered,
 * failed for good (a refusal, a status not retried, or the last attempt), or pending again at the
 * retry time. `onAttempt` counts the outcome (metrics).
 */
export async function deliverCallback(
  due: DueCallback,
  queue: Pick<JobQueue, 'recordAttempt'>,
  o: { policy: CallbackPolicy; resolve: Resolver; http: CallbackHttp; now: () => Date; userAgent: string; onAttempt?: (outcome: string) => void },
): Promise<void> {
  const started = o.now();
  const r = await attemptDelivery(due, o);
  const ended = o.now();
  const last = due.attempt >= MAX_ATTEMPTS;
  const outcome = r.outcome === 'retry' && last ? 'failed' : r.outcome;
  o.onAttempt?.(r.outcome === 'retry' && !last ? 'retry' : outcome);
  await queue.recordAttempt(
    due.job_id,
    {
      attempt: due.attempt,
      started_at: started.toISOString(),
      finished_at: ended.toISOString(),
      outcome,
      http_status: r.http_status,
      error: r.outcome === 'delivered' ? null : r.error,
    },
    r.outcome === 'delivered'
      ? { state: 'delivered' }
      : r.outcome === 'retry' && !last
        ? { state: 'pending', at: nextAttemptAt(due.attempt, ended, r.retryAfterMs) }
        : { state: 'failed' },
  );
}
