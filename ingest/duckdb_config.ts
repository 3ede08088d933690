/**
 * DuckDB's memory bound while a version is staged or diffed (`RCM_INGEST_MEMORY_MB`): its joins,
 * aggregates and sorts spill to a temp directory past it instead of growing with the file.
 */
export const DEFAULT_INGEST_MEMORY_MB = 512;

/** The instance settings of an ingest's DuckDB (its memory bound, and where it spills). */
export function ingestDuckDbConfig(memoryMb: number | undefined, tempDirectory: string): Record<string, string> {
  return { memory_limit: `${memoryMb ?? DEFAULT_INGEST_MEMORY_MB}MB`, temp_directory: tempDirectory };
}
