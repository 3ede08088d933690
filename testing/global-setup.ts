import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';

declare module 'vitest' {
  export interface ProvidedContext {
    seededDir: string;
  }
}

/** Loads seeds/ once per test run; each test server copies the result (see harness.ts). */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-seeded-'));
  await seedAll(new Warehouse(dir), resolve(import.meta.dirname, '../seeds'), () => new Date('2026-11-01T00:00:00Z'));
  project.provide('seededDir', dir);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
