/**
 * The sentinel: audits a summary of a PTP edit against the edit itself before a client sees it.
 * Summaries may come from an LLM later, so nothing in them is trusted: every code, modifier
 * statement and status claim is checked against the row, and instructions, links or personal
 * identifiers injected into the text are flagged. Pure functions, no I/O.
 */
import { securityFindings } from './text_audit.js';
import type { PatternHit, Sentinel, SentinelFinding, Severity } from './schemas.js';
import type { PtpEditFacts } from './ptp_summary.js';

const WEIGHT: Record<Severity, number> = { critical: 0.6, high: 0.35, medium: 0.15, low: 0.05 };

/** Procedure-code shapes: CPT `99213`, HCPCS `G0008`, Cat II/III/PLA/vaccine `0591T`, `0001U`, `0001A`. */
const CODE_TOKEN = /\b(?:\d{5}|[A-Z]\d{4}|\d{4}[A-Z])\b/g;


const CLAIM_NOT_ALLOWED =
  /\bmodifiers?\b[^.]{0,80}?\b(?:is|are)\s+not\s+(?:allowed|permitted)|\bmodifiers?\b[^.]{0,40}?\bcannot\b|\bnot\s+(?:be\s+)?(?:bypassed|overridden)|\bno\s+modifier\b|\bmodifier indicator(?:\s+is)?:?\s*0\b|\bcan ?not be (?:billed|reported|paid) together\b/i;
const CLAIM_ALLOWED =
  /\bmodifiers?\b[^.]{0,80}?\b(?:is|are)\s+(?:allowed|permitted)|\bmay\s+(?:be\s+)?bypass|\bcan\s+be\s+bypassed|\bmodifier indicator(?:\s+is)?:?\s*1\b|\b(?:billed|reported|paid) (?:together )?(?:separately )?with (?:an? )?(?:appropriate |clinically appropriate )?modifier\b/i;
const CLAIM_NOT_APPLICABLE = /\bmodifier indicator(?:\s+is)?:?\s*9\b|\bdoes not apply\b|\bnever applied\b|\bnot applicable\b/i;
const CLAIM_INACTIVE = /\bno longer applies\b|\bhas no edit\b|\bno (?:active )?edit\b|\bdoes not restrict\b|\bnever applied\b|\btakes effect\b/i;
const CLAIM_ACTIVE = /\bactive edit\b|\bis in effect\b|\bis denied\b|\bwill be denied\b/i;
const ROLE = /\bcolumn\s*(1|one|2|two)(?:\s+code)?(?:\s+is)?[\s:]+([A-Z0-9]{5})\b|\b([A-Z0-9]{5})\s*\(column\s*(1|one|2|two)\)/gi;


const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Audits `summary` against `edit`: codes (no foreign codes, both codes named, roles right),
 * the modifier statement and the status claim must agree with the row; links, e-mails, phone
 * numbers, NPIs, beneficiary ids, markup and injected instructions are security findings.
 * Scores run 0..1; any critical/high or security finding requires escalation.
 */
export function auditSummary(summary: string, edit: PtpEditFacts): Sentinel {
  const findings: SentinelFinding[] = [];
  const security: SentinelFinding[] = [];
  const patterns: PatternHit[] = [];
  const add = (list: SentinelFinding[], category: PatternHit['category'], f: SentinelFinding, pattern = f.code) => {
    list.push(f);
    patterns.push({ pattern, category, severity: f.severity, match: f.match ?? '' });
  };

  for (const f of securityFindings(summary)) add(security, 'security', f);

  // Codes: only the pair's two codes may appear, and both should.
  const own = new Set([edit.col1_proc_cd, edit.col2_proc_cd]);
  const seen = new Set<string>();
  for (const m of summary.toUpperCase().matchAll(CODE_TOKEN)) {
    seen.add(m[0]);
    if (!own.has(m[0])) add(findings, 'content', { code: 'foreign_code', severity: 'critical', message: `summary names code ${m[0]}, which is not part of this edit`, match: m[0] });
  }
  for (const c of own) {
    if (!seen.has(c)) add(findings, 'content', { code: 'code_missing', severity: 'medium', message: `summary does not name code ${c}`, match: c });
  }
  for (const m of summary.matchAll(ROLE)) {
    const role = (m[1] ?? m[4] ?? '').toLowerCase();
    const code = (m[2] ?? m[3] ?? '').toUpperCase();
    const want = role === '1' || role === 'one' ? edit.col1_proc_cd : edit.col2_proc_cd;
    if (code && own.has(code) && code !== want) {
      add(findings, 'content', { code: 'code_role_swapped', severity: 'critical', message: `summary calls ${code} the column ${role} code; the edit has ${want} there`, match: m[0] });
    }
  }

  // Modifier statement.
  const saysNotAllowed = CLAIM_NOT_ALLOWED.exec(summary);
  const saysAllowed = CLAIM_ALLOWED.exec(summary);
  const saysNA = CLAIM_NOT_APPLICABLE.exec(summary);
  const contradiction = (match: RegExpExecArray, expected: string) =>
    add(findings, 'content', { code: 'modifier_contradiction', severity: 'critical', message: `summary's modifier statement contradicts the edit (${expected})`, match: match[0] });
  if (edit.modifier === '0' && saysAllowed) contradiction(saysAllowed, 'indicator 0: modifier not allowed');
  if (edit.modifier === '1' && saysNotAllowed) contradiction(saysNotAllowed, 'indicator 1: modifier allowed');
  if (edit.modifier === '9' && (saysAllowed || saysNotAllowed) && !saysNA) contradiction((saysAllowed ?? saysNotAllowed)!, 'indicator 9: edit not applicable');
  if (edit.modifier === null && (saysAllowed || saysNotAllowed)) {
    add(findings, 'content', { code: 'modifier_without_edit', severity: 'high', message: 'summary states a modifier rule but the pair has no edit', match: (saysAllowed ?? saysNotAllowed)![0] });
  }
  if (saysAllowed && saysNotAllowed && edit.modifier !== null) {
    add(findings, 'content', { code: 'modifier_ambiguous', severity: 'medium', message: 'summary says both that a modifier is and is not allowed' });
  }
  if (edit.status === 'active' && (edit.modifier === '0' || edit.modifier === '1') && !saysAllowed && !saysNotAllowed) {
    add(findings, 'content', { code: 'modifier_statement_missing', severity: 'low', message: 'summary does not say whether a modifier may bypass the active edit' });
  }

  // Status claim.
  const inactive = CLAIM_INACTIVE.exec(summary);
  const active = CLAIM_ACTIVE.exec(summary);
  if (edit.status === 'active' && inactive) {
    add(findings, 'content', { code: 'status_contradiction', severity: 'high', message: 'summary says the edit does not apply, but it is active on the date of service', match: inactive[0] });
  }
  if (edit.status !== 'active' && active) {
    add(findings, 'content', { code: 'status_contradiction', severity: 'high', message: `summary says the edit applies, but its status is ${edit.status}`, match: active[0] });
  }

  const penalty = (l: SentinelFinding[]) => l.reduce((a, f) => a + WEIGHT[f.severity], 0);
  const composite = round2(Math.max(0, 1 - penalty(findings)));
  const securityScore = round2(Math.max(0, 1 - penalty(security)));
  const trust = round2(Math.min(composite, securityScore));
  const serious = (l: SentinelFinding[]) => l.some((f) => f.severity === 'critical' || f.severity === 'high');
  const tier = security.length > 0 || serious(findings) ? (trust < 0.4 || security.length > 0 ? 'blocked' : 'low') : trust >= 0.9 ? 'high' : trust >= 0.7 ? 'medium' : 'low';
  return {
    audit: {
      composite_score: composite,
      security_score: securityScore,
      findings,
      security_findings: security,
      flags: [...new Set([...findings, ...security].map((f) => f.code))],
      tier,
    },
    authority_level: findings.length === 0 && security.length === 0 ? 'source_verified' : serious(findings) || security.length ? 'unverified' : 'partially_verified',
    escalation_required: security.length > 0 || serious(findings),
    patterns_detected: patterns,
    trust_score: trust,
  };
}
