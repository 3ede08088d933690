import { z } from 'zod';
import { securityFindings } from './text_audit.js';
import type { KeyType } from '../../warehouse/tenant_state.js';
import { DatasetCitationSchema } from '../schemas.js';

/** One fact an agent found, in words, with the values it rests on and its source (the dataset version and the publisher's files). */
export const EvidenceSchema = z
  .object({
    kind: z.string().describe('what the fact is about: descriptor, payment, ptp_prac, mue_practitioner, x12, denial_pattern, coverage_article, ...'),
    statement: z.string().describe('the fact in words'),
    facts: z.record(z.string(), z.unknown()).describe('the values the statement rests on'),
    citation: DatasetCitationSchema.nullable(),
  })
  .meta({ id: 'AgentEvidence' });
export type Evidence = z.output<typeof EvidenceSchema>;

/** What a writer phrases: a conclusion and the evidence it rests on (an agent result, a PTP summary). */
export interface WriterTask {
  agent: string;
  conclusion: string;
  evidence: Evidence[];
}

/**
 * Phrases found facts for a person: the one abstraction for optional LLM text (agent narratives,
 * PTP summaries). Only the evidence reaches a writer, never the caller's free text.
 */
export interface Writer {
  name: string;
  write(task: WriterTask): Promise<string>;
}

/** The default: the conclusion and each evidence statement, as found. Needs no network. */
export const templateWriter: Writer = {
  name: 'template',
  async write(t) {
    return [t.conclusion, ...t.evidence.map((e) => e.statement)].join(' ');
  },
};

export interface LlmOptions {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * An OpenAI-compatible chat-completions writer (`RCM_LLM_URL`, `RCM_LLM_MODEL`,
 * `RCM_LLM_API_KEY`). It is told to phrase the evidence and add nothing; `auditNarrative` then
 * checks that it did.
 */
export function llmWriter(o: LlmOptions): Writer {
  const f = o.fetch ?? fetch;
  return {
    name: `llm:${o.model}`,
    async write(t) {
      const res = await f(`${o.url.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
        signal: AbortSignal.timeout(o.timeoutMs),
        body: JSON.stringify({
          model: o.model,
          temperature: 0,
          messages: [
            {
              role: 'system',
              content:
                'You write short plain-English notes for hospital billing staff. Use only the facts given. Do not add codes, amounts, dates, deadlines, links, contact details or advice that are not in the facts.',
            },
            { role: 'user', content: JSON.stringify({ agent: t.agent, conclusion: t.conclusion, evidence: t.evidence.map((e) => ({ statement: e.statement, facts: e.facts })) }) },
          ],
        }),
      });
      if (!res.ok) throw new Error(`LLM answered ${res.status}`);
      const body = (await res.json()) as { choices?: { message?: { content?: string } }[] };
      const text = body.choices?.[0]?.message?.content;
      if (typeof text !== 'string' || text.trim() === '') throw new Error('LLM answer has no text');
      return text.trim();
    },
  };
}

const CODE = /\b(?:\d{4}[0-9A-Z]|[A-Z]\d{4}|[A-TV-Z]\d{2}(?:\.[0-9A-Z]{1,4})?|[A-Z]\d{2}[0-9A-Z]{1,4})\b/g;
const AMOUNT = /\$\s?\d[\d,]*(?:\.\d+)?|\b\d+\.\d+\b/g;
const DAYS = /\b\d+\s*(?:calendar\s+|business\s+)?(?:days?|hours?|months?|years?)\b/gi;
const DATE = /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g;

/**
 * Audits a written note against the evidence: every code, amount, date and period it names
 * must appear in the evidence, and links, identifiers or instructions are refused. A note that
 * fails is dropped (the caller keeps the template text and says why).
 */
export function auditNarrative(text: string, evidence: Evidence[], conclusion: string): { ok: boolean; flags: string[] } {
  const source = JSON.stringify({ conclusion, evidence }).toUpperCase().replace(/,(?=\d{3}\b)/g, '');
  const flags = securityFindings(text).map((f) => `${f.code}: ${f.match}`);
  const check = (re: RegExp, kind: string, norm: (s: string) => string) => {
    for (const m of text.matchAll(re)) {
      const token = norm(m[0]);
      if (!source.includes(token)) flags.push(`${kind} not in evidence: ${m[0]}`);
    }
  };
  check(CODE, 'code', (s) => s.toUpperCase());
  check(AMOUNT, 'amount', (s) => s.replace(/[$\s,]/g, '').replace(/\.?0+$/, (z) => (z.startsWith('.') ? '' : z)).toUpperCase());
  check(DATE, 'date', (s) => s);
  check(DAYS, 'period', (s) => s.match(/\d+/)![0]);
  return { ok: flags.length === 0, flags };
}

/**
 * The note for a result: the template text, or the LLM's when one is configured, the key may
 * send data out (a test key may not, unless `RCM_LLM_ALLOW_TEST=1`: test keys must not carry
 * PHI to an outside service) and the text passes the audit.
 */
export async function narrate(
  task: { agent: string; conclusion: string; evidence: Evidence[] },
  o: { llm: Writer | null; keyType: KeyType; allowTestKeys: boolean },
): Promise<{ narrative: string; writer: string; warnings: string[] }> {
  const template = await templateWriter.write(task);
  if (!o.llm) return { narrative: template, writer: templateWriter.name, warnings: [] };
  if (o.keyType === 'test' && !o.allowTestKeys) {
    return { narrative: template, writer: templateWriter.name, warnings: ['LLM writer not used: a test key may not send data to an outside service (RCM_LLM_ALLOW_TEST=1 allows it)'] };
  }
  let text: string;
  try {
    text = await o.llm.write(task);
  } catch (e) {
    return { narrative: template, writer: templateWriter.name, warnings: [`LLM writer failed (${(e as Error).message}); the template text is used`] };
  }
  const audit = auditNarrative(text, task.evidence, task.conclusion);
  if (!audit.ok) return { narrative: template, writer: templateWriter.name, warnings: [`LLM text dropped by the audit (${audit.flags.join('; ')}); the template text is used`] };
  return { narrative: text, writer: o.llm.name, warnings: [] };
}
