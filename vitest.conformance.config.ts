import { defineConfig } from 'vitest/config';

/** Conformance suite: ingests the real publisher files in ../shared/data (RCM_SHARED_DATA). */
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    env: { TZ: 'UTC' },
  },
});
