import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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

/** True when Chromium is installed; otherwise says which browser tests are skipped and why. */
export function chromiumAvailable(tests: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available) console.warn(`${tests} skipped: ${CHROMIUM} is absent (CI installs Debian's chromium package)`);
  return available;
}

/** A fresh browser with its own temporary profile. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
