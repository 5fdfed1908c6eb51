import { defineConfig } from 'vitest/config';

// Node-side suites. The browser suites in test/browser run under web-test-runner (web-test-runner.config.mjs).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', 'node_modules/**'],
    environment: 'node',
    // Two files at a time on two cores: most node suites wait on processes they start (a sandbox, a kit, redis-server,
    // npm, Chromium), so one at a time left a core idle (about 360 s in one, 240 s in two, on a quiet machine).
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
