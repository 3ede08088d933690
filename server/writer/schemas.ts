import { z } from 'zod';

/** The audit a model-written text gets (the spec's `sentinel` object of a PTP answer). */
export const SeveritySchema = z.enum(['critical', 'high', 'medium', 'low']);
/** A detector pattern that fired (what matched, where it belongs). */
const PatternHitSchema = z.object({ pattern: z.string(), category: z.enum(['content', 'security']), severity: SeveritySchema, match: z.string() });
/** One problem found in a summary. */
const SentinelFindingSchema = z.object({ code: z.string(), severity: SeveritySchema, message: z.string(), match: z.string().optional() });
export type Severity = z.output<typeof SeveritySchema>;
export type PatternHit = z.output<typeof PatternHitSchema>;
export type SentinelFinding = z.output<typeof SentinelFindingSchema>;

/** The spec's sentinel object. */
export const SentinelSchema = z
  .object({
  audit: z.object({
    composite_score: z.number(),
    security_score: z.number(),
    findings: z.array(SentinelFindingSchema),
    security_findings: z.array(SentinelFindingSchema),
    flags: z.array(z.string()),
    tier: z.enum(['high', 'medium', 'low', 'blocked']),
  }),
  authority_level: z.enum(['source_verified', 'partially_verified', 'unverified']),
  escalation_required: z.boolean(),
  patterns_detected: z.array(PatternHitSchema),
  trust_score: z.number(),
});
export type Sentinel = z.output<typeof SentinelSchema>;
