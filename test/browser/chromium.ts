import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium package, which CI installs when missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless, no sandbox (containers), and nothing that reaches the network on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** Set by CI, where a missing browser is a broken set-up rather than a reason to skip. */
const BROWSER_REQUIRED = process.env.TEXTRELAY_REQUIRE_BROWSER === '1';

/** True when Chromium is installed; where it is absent the run's last line says so (test/browser/skipped-reporter.ts). */
export function chromiumAvailable(tests: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available && BROWSER_REQUIRED) throw new Error(`${tests}: ${CHROMIUM} is absent and TEXTRELAY_REQUIRE_BROWSER=1`);
  return available;
}

/** A fresh browser with its own temporary profile. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
