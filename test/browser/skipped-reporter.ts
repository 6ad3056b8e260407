import { existsSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';
import { CHROMIUM } from './chromium.ts';

/** Runs after the default reporter, so that skipped browser tests are the run's last, unmissable line. */
export default class BrowserSkippedReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const ranBrowserTests = testModules.some((module) => module.moduleId.includes('browser'));
    if (!ranBrowserTests || existsSync(CHROMIUM)) return;
    console.log(
      `\n\x1b[1;33mBROWSER TESTS SKIPPED: ${CHROMIUM} is absent. Install it with \`sudo apt-get install chromium\` (Debian/Ubuntu) and run npm test again.\x1b[0m\n`,
    );
  }
}
