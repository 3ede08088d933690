import { getDataset } from '../../datasets/registry.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { AgentContext } from './runner.js';
import { narrate as narrateWith, type Citation, type Evidence, type Writer } from './writer.js';

/** What agents need to phrase their findings (`RCM_LLM_*`). */
export interface AgentWriterOptions {
  llm: Writer | null;
  /** `RCM_LLM_ALLOW_TEST=1`: let a test key's job reach the LLM. */
  allowTestKeys: boolean;
}

/** The citation of one loaded dataset version: publisher and the source files it was built from. */
export function citationOf(snapshot: SnapshotReader, dataset: string, version: string): Citation {
  const v = snapshot.versions(dataset).find((x) => x.version === version);
  return { dataset, version, publisher: getDataset(dataset)?.publisher ?? dataset, source_files: v?.source_files.map((f) => f.name) ?? [] };
}

/** The note of an agent result, through the configured writer for this job's key. */
export function narrate(task: { agent: string; conclusion: string; evidence: Evidence[] }, ctx: AgentContext, o: AgentWriterOptions) {
  return narrateWith(task, { llm: o.llm, keyType: ctx.keyType, allowTestKeys: o.allowTestKeys });
}

/** What every agent collects while it runs: cited evidence, the versions it read, warnings. */
export function findings(snapshot: SnapshotReader) {
  const evidence: Evidence[] = [];
  const warnings: string[] = [];
  const versions: Record<string, string> = {};
  return {
    evidence,
    warnings,
    versions,
    /** The citation of a dataset version, recorded among the versions the result used. */
    cite(dataset: string, version: string): Citation {
      versions[dataset] = version;
      return citationOf(snapshot, dataset, version);
    },
  };
}

/** The tail every agent result shares: the conclusion phrased by the writer, the evidence and its citations. */
export async function conclude(f: ReturnType<typeof findings>, agent: string, conclusion: string, ctx: AgentContext, o: AgentWriterOptions) {
  const note = await narrate({ agent, conclusion, evidence: f.evidence }, ctx, o);
  return {
    conclusion,
    narrative: note.narrative,
    writer: note.writer,
    evidence: f.evidence,
    citations: f.evidence.map((e) => e.citation).filter((c) => c !== null),
    dataset_versions: f.versions,
    warnings: [...f.warnings, ...note.warnings],
  };
}
