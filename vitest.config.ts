import { defineConfig } from 'vitest/config';
import { base } from './vitest.base.js';

export default defineConfig({
  test: { ...base, include: ['test/**/*.test.ts', 'datasets/**/*.test.ts'], exclude: ['test/conformance/**', 'test/browser/**', '**/node_modules/**'] },
});
