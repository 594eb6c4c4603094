import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Playwright's own browser download cannot run here, so the tests use Debian's chromium and install
 * it on a clean machine (CI runs as root; elsewhere passwordless sudo is tried).
 */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const asRoot = process.getuid?.() === 0;
  const run = (args: string[]) =>
    execFileSync(asRoot ? args[0]! : 'sudo', asRoot ? args.slice(1) : ['-n', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  console.log('[storefront tests] installing chromium from Debian (apt-get install -y chromium)');
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', '--no-install-recommends', 'chromium']);
  if (!existsSync(CHROMIUM)) throw new Error(`chromium is still missing at ${CHROMIUM}`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
