import type { InlineConfig } from 'vitest/node';

/** Settings every suite shares (unit, conformance, browser); each config adds what it runs. */
export const base: InlineConfig = {
  environment: 'node',
  globalSetup: ['testing/global-setup.ts'],
  setupFiles: ['testing/temp_cleanup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks',
  env: { TZ: 'UTC' },
};
