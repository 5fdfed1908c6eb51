import { defineConfig } from 'vitest/config';

// Node-side suites. The browser suites in test/browser run under web-test-runner (web-test-runner.config.mjs).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
