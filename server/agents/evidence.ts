import type { z } from 'zod';
import type { DatasetId } from '../../datasets/registry.js';
import type { CitedDocumentSchema } from '../schemas.js';
import { Trace, type DatasetCitation } from '../trace.js';
import type { AgentContext } from './define.js';
import type { AgentConclusion } from './schemas.js';
import { narrate, type Evidence } from '../writer/writer.js';

/**
 * What an agent collects while it runs: the trace of what it read (versions, warnings,
 * citations, as every REST answer keeps one) and the evidence it cites.
 */
export function gather(ctx: AgentContext): Findings {
  return { trace: new Trace(ctx.snapshot, ctx.now), evidence: [] };
}

/** What an agent has found so far: the trace (versions, warnings) and the cited evidence. */
export interface Findings {
  trace: Trace;
  evidence: Evidence[];
}

/** The tail every agent result shares: the conclusion phrased by the writer, the evidence and its citations. */
export async function conclude(g: Findings, agent: string, conclusion: string, ctx: AgentContext): Promise<AgentConclusion> {
  const note = await narrate({ agent, conclusion, evidence: g.evidence }, { llm: ctx.writer.llm, keyType: ctx.keyType, allowTestKeys: ctx.writer.allowTestKeys });
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

/** A document an answer rests on (an LCD, article or NCD version), named inside its dataset's citation. */
export type CitedDocument = z.output<typeof CitedDocumentSchema>;

/**
 * The citation of one document of a dataset version: the dataset's (publisher, source files),
 * plus the document itself, so each evidence item names the LCD, article or NCD it cites.
 */
export function citeDocument(trace: Trace, dataset: DatasetId, version: string, document: CitedDocument): DatasetCitation & { document: CitedDocument } {
  return { ...trace.cite(dataset, version), document };
}
