import type { InlineConfig } from 'vitest/node';

/** Settings every suite shares (unit, conformance, browser); each config adds what it runs. */
export const base: InlineConfig = {
  environment: 'node',
  globalSetup: ['test/helpers/global-setup.ts'],
  setupFiles: ['test/helpers/temp_cleanup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks',
  env: { TZ: 'UTC' },
};
