import { launchChromium } from '@gatewaykit/cluster-testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** One Chromium per test file; each journey opens its own context (fresh storage, no shared login). */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not started yet');
    return browser;
  };
}
