import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { base } from './vitest.base.js';

/**
 * `npm test`: three projects in one run, sharing the workers.
 * - `unit`: `*.test.ts` beside the code they test and in test/; they import only what they test
 *   (testing/ holds what tests share).
 * - `int`: `*.int.test.ts`, tests that start a server or a process, or need PostgreSQL; they share
 *   the seeded data dir that the global setup loads once per run.
 * - `isolated`: unit files that replace a module (`vi.mock`), each in a module graph of its own.
 * Files run in parallel (one worker per core, at least two: most int files wait on sockets and
 * child processes), and a worker reuses its module graph across files (`isolate: false`): each
 * file builds its own servers, stores and temp dirs, so importing the server once per worker
 * instead of once per file takes most of the run's time away (measured in the README).
 * `npm run test:unit` runs the unit tests alone (`unit` and `isolated`).
 */
const exclude = ['test/conformance/**', 'test/browser/**', '**/node_modules/**'];
/** Every folder a test may sit in: beside the code it defends, or in test/ when it crosses areas. */
const ROOTS = '{test,testing,cli,server,ingest,datasets,warehouse,lib}';
const ISOLATED = ['datasets/streaming.test.ts'];
export default defineConfig({
  test: {
    ...base,
    globalSetup: [],
    isolate: false,
    maxWorkers: Math.max(2, availableParallelism()),
    minWorkers: 1,
    projects: [
      { extends: true, test: { name: 'unit', include: [`${ROOTS}/**/*.test.ts`], exclude: [...exclude, '**/*.int.test.ts', ...ISOLATED] } },
      // Files that replace a module (`vi.mock`) need a module graph of their own: in a reused one
      // the module may already be bound to the real import.
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      { extends: true, test: { name: 'int', include: [`${ROOTS}/**/*.int.test.ts`], exclude, globalSetup: ['testing/global-setup.ts'] } },
    ],
  },
});
