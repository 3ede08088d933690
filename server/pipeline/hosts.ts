import { BoundedMap } from '../../lib/bounded_map.js';
import { DomainError } from '../../warehouse/errors.js';
import type { KeyType } from '../../warehouse/tenant_state.js';

/** The host a request addressed: the production (`live`) host or the test host; keys pair with it. */
export type HostKind = KeyType;

export interface HostRules {
  /** Normalised production host names (`RCM_LIVE_HOSTS`). */
  liveHosts: string[];
  /** Normalised test host names (`RCM_TEST_HOSTS`); when both lists are set, any other host is 421. */
  testHosts: string[];
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const NAME_RE = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
const IPV4_RE = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_RE = /^\[[0-9a-f:.]+\]$/;

/**
 * Normalises a host for test/live pairing: lower case, port and a trailing dot stripped, so
 * `API.example.com.:443`, `api.example.com:` and `api.example.com` are one host. The authority
 * of an absolute-form request target (`GET http://api.example.com/v1/...`) wins over the `Host`
 * header, as HTTP/1.1 says (RFC 9112 section 3.2.2). Returns null when it is not a valid host.
 */
export function normalizeHost(hostHeader: string | undefined, target?: string): string | null {
  let authority = hostHeader ?? '';
  if (target && /^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target);
    authority = m ? m[1]! : '';
    if (authority.includes('@')) return null; // userinfo is never a host
  }
  const a = authority.trim().toLowerCase();
  if (a === '' || a.length > 260) return null;
  let host: string;
  let port: string;
  if (a.startsWith('[')) {
    const end = a.indexOf(']');
    if (end < 0) return null;
    host = a.slice(0, end + 1);
    port = a.slice(end + 1);
    if (port !== '' && !port.startsWith(':')) return null;
    port = port.slice(1);
    if (!IPV6_RE.test(host)) return null;
  } else {
    const i = a.lastIndexOf(':');
    host = i < 0 ? a : a.slice(0, i);
    port = i < 0 ? '' : a.slice(i + 1);
    if (host.endsWith('.')) host = host.slice(0, -1);
    if (!NAME_RE.test(host) && !IPV4_RE.test(host)) return null;
  }
  // A port is 1-65535 (`:99999` names no port, so no host).
  if (port !== '' && (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)) return null;
  return host;
}

const seenHosts = new BoundedMap<string, { host: string | null }>(256);
/** `normalizeHost` of a Host header, remembered for the few distinct values a server sees (bounded). */
function normalizedHeader(h: string | undefined): string | null {
  if (h === undefined) return null;
  return seenHosts.getOrSet(h, () => ({ host: normalizeHost(h) })).host;
}

/** Normalises a configured list (`RCM_LIVE_HOSTS=API.example.com.,api2.example.com:443`). */
export function normalizeHostList(list: string[]): string[] {
  return list.map((h) => normalizeHost(h) ?? h.trim().toLowerCase()).filter(Boolean);
}

/**
 * Which host a request addresses: 400 for a missing or malformed host, 421 (misdirected) when
 * both lists are configured and the host is on neither, otherwise `live` or `test`.
 */
export function hostKindOf(rules: HostRules, hostHeader: string | undefined, target?: string): HostKind {
  // An origin-form target (`/v1/...`, every ordinary request) leaves the Host header alone to decide.
  const host = target === undefined || target.startsWith('/') ? normalizedHeader(hostHeader) : normalizeHost(hostHeader, target);
  if (host === null) throw new DomainError('invalid_host', 'the Host header (or request target authority) is not a valid host name');
  if (rules.liveHosts.includes(host)) return 'live';
  if (rules.testHosts.length > 0 && rules.liveHosts.length > 0 && !rules.testHosts.includes(host)) {
    throw new DomainError('misdirected_request', `this service does not answer for host ${host}`);
  }
  return 'test';
}
