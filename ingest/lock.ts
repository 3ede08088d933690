import { open, readFile, rm } from 'node:fs/promises';
import { IngestError } from '../datasets/_shared/issue.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One writer at a time per data dir: two ingests racing on CURRENT would drop one change.
 * The lock file holds the owner's pid; a lock left by a killed process is taken over.
 */
export async function withWriteLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      const fh = await open(file, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (!pid || !alive(pid)) {
        await rm(file, { force: true });
        continue;
      }
      if (attempt > 600) throw new IngestError(`another ingest (pid ${pid}) holds ${file}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(file, { force: true });
  }
}
