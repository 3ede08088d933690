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
