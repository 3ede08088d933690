import { defineConfig } from 'vitest/config';
import { base } from './vitest.base.js';

/** Page tests in a real browser (Debian's Chromium through playwright-core); `.ci/run` installs it. */
export default defineConfig({ test: { ...base, include: ['test/browser/**/*.test.ts'] } });
