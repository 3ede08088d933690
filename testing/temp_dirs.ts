import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temp dirs made by `tempDir` and not yet removed. */
const made = new Set<string>();

/** A fresh temp dir named `<prefix>XXXXXX`, removed after the test file that made it (`temp_cleanup.ts`). */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every dir `tempDir` made so far. */
export async function removeTempDirs(): Promise<void> {
  const dirs = [...made];
  made.clear();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
}
