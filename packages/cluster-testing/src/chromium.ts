import { type Browser, chromium } from 'playwright-core';
import { ensureDebianPackage } from './debian-package.js';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Playwright's own browser download cannot run here: the browser tests use Debian's chromium. */
export function ensureChromium(): void {
  ensureDebianPackage(CHROMIUM, 'chromium');
}

/** Headless Debian chromium (installed first when missing). */
export function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
