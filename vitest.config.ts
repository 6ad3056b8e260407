import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/browser/skipped-reporter.ts'],
    // CLI tests spawn real processes; the default 5 s is too tight on a loaded 2-core CI box.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
