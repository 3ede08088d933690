import type { SentinelFinding, Severity } from './schemas.js';

/**
 * The text audit every model-written text passes (agent narratives, PTP summaries): whatever a
 * writer returns is untrusted, so links, contact details, identifiers (NPI, SSN, MBI), markup,
 * injected instructions and billing directives are findings. Pure, no I/O.
 */

const SECURITY: { name: string; re: RegExp; severity: Severity; message: string }[] = [
  { name: 'url', re: /\b(?:https?|ftp):\/\/\S+|\bwww\.[^\s]+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|gov|info|biz|co|us|ly|me|xyz)\b(?:\/\S*)?/gi, severity: 'high', message: 'summary contains a link' },
  { name: 'email', re: /\b[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}\b/gi, severity: 'high', message: 'summary contains an e-mail address' },
  { name: 'phone', re: /(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.-])\d{3}[\s.-]\d{4}\b/g, severity: 'high', message: 'summary contains a phone number' },
  { name: 'npi', re: /\b\d{10}\b|\bNPI\s*#?:?\s*\d+/gi, severity: 'high', message: 'summary contains an NPI or other 10-digit identifier' },
  { name: 'ssn', re: /\b\d{3}-\d{2}-\d{4}\b/g, severity: 'critical', message: 'summary contains a social security number' },
  { name: 'mbi', re: /\b[1-9][AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y0-9]\d[AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y0-9]\d[AC-HJKMNP-RT-Y]{2}\d{2}\b/g, severity: 'critical', message: 'summary contains a Medicare beneficiary identifier' },
  {
    name: 'prompt_injection',
    re: /\b(?:ignore|disregard|forget|override)\b[^.]{0,40}\b(?:instructions?|rules|previous|above|prior|guidelines)\b|\bsystem prompt\b|\byou are now\b|\bact as\b|\bnew instructions?\b|\bdo not (?:tell|mention|reveal)\b|\bjailbreak\b/gi,
    severity: 'critical',
    message: 'summary contains instructions aimed at the reader or a model',
  },
  { name: 'markup', re: /<\/?\s*(?:script|iframe|img|a|style)\b[^>]*>|\[[^\]]+\]\([^)]+\)|javascript:/gi, severity: 'critical', message: 'summary contains markup or a hidden link' },
  {
    name: 'billing_directive',
    re: /\balways (?:bill|append|use|report)\b|\b(?:append|add) (?:modifier )?(?:59|X[EPSU]) to (?:all|every|any)\b|\bto (?:avoid|bypass|get around) (?:the )?(?:edit|denial|audit|ncci)\b|\bsplit (?:the )?claim\b/gi,
    severity: 'high',
    message: 'summary gives billing instructions the edit does not support',
  },
];

/**
 * Links, e-mails, phone numbers, NPIs, beneficiary ids, markup and injected instructions in a
 * text that came from a model (every audited writer uses these).
 */
export function securityFindings(text: string): SentinelFinding[] {
  const out: SentinelFinding[] = [];
  for (const s of SECURITY) for (const m of text.matchAll(s.re)) out.push({ code: s.name, severity: s.severity, message: s.message, match: m[0] });
  return out;
}
