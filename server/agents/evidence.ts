import { Trace } from '../trace.js';
import type { AgentContext } from './runner.js';
import { narrate, type Evidence, type Writer } from '../writer/writer.js';

/** What agents need to phrase their findings (`RCM_LLM_*`). */
export interface AgentWriterOptions {
  llm: Writer | null;
  /** `RCM_LLM_ALLOW_TEST=1`: let a test key's job reach the LLM. */
  allowTestKeys: boolean;
}

/**
 * What an agent collects while it runs: the trace of what it read (versions, warnings,
 * citations, as every REST answer keeps one) and the evidence it cites.
 */
export function gather(ctx: AgentContext): { trace: Trace; evidence: Evidence[] } {
  return { trace: new Trace(ctx.snapshot, ctx.now), evidence: [] };
}

/** The tail every agent result shares: the conclusion phrased by the writer, the evidence and its citations. */
export async function conclude(g: { trace: Trace; evidence: Evidence[] }, agent: string, conclusion: string, ctx: AgentContext, o: AgentWriterOptions) {
  const note = await narrate({ agent, conclusion, evidence: g.evidence }, { llm: o.llm, keyType: ctx.keyType, allowTestKeys: o.allowTestKeys });
  return {
    conclusion,
    narrative: note.narrative,
    writer: note.writer,
    evidence: g.evidence,
    citations: g.evidence.map((e) => e.citation).filter((c) => c !== null),
    dataset_versions: g.trace.versions,
    warnings: [...g.trace.warnings, ...note.warnings],
  };
}
