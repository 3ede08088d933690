import { defineConfig } from 'vitest/config';
import { base } from './vitest.base.js';

/** Conformance suite: ingests the real publisher files in ../shared/data (RCM_SHARED_DATA). */
export default defineConfig({ test: { ...base, include: ['test/conformance/**/*.test.ts'], testTimeout: 300_000, hookTimeout: 300_000 } });
