import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { keepVitestExitCode } from '../../../medusa-store/scripts/keep-exit-code';
import { STOREFRONT_ROOT } from '../../server/serve';
import { startStack } from '../../server/stack';
import { ensureChromium } from './chromium';
import { freePort } from './ports';

declare module 'vitest' {
  export interface ProvidedContext {
    storefrontUrl: string;
    sandboxUrl: string;
    medusaUrl: string;
    vendureUrl: string;
    publishableKey: string;
  }
}

/** One sandbox, both stores and the storefront for the whole run, on free ports with throwaway data. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureChromium();
  if (!existsSync(join(STOREFRONT_ROOT, 'dist', 'index.html'))) {
    await build({ root: STOREFRONT_ROOT, logLevel: 'warn' });
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'gatewaykit-storefront-test-'));
  // As root, embedded Postgres runs as the `postgres` user, which must be able to enter this folder.
  chmodSync(dataDir, 0o755);
  const started = Date.now();
  const stack = await startStack({
    dataDir,
    ports: {
      sandbox: await freePort(),
      medusa: await freePort(),
      postgres: await freePort(),
      vendure: await freePort(),
      storefront: await freePort(),
    },
    // Callback retries compressed: a failed first delivery must not hold a journey for 15 s.
    callbackTimeScale: 1 / 100,
  });
  keepVitestExitCode();
  console.log(`[storefront tests] stack ready in ${Date.now() - started} ms (data in ${dataDir})`);
  project.provide('storefrontUrl', stack.storefront.url);
  project.provide('sandboxUrl', stack.sandbox.url);
  project.provide('medusaUrl', stack.medusa.url);
  project.provide('vendureUrl', stack.vendure.url);
  project.provide('publishableKey', stack.medusa.publishableKey);
  return async () => {
    await stack.close();
    if (!process.env.KEEP_TEST_DATA) rmSync(dataDir, { recursive: true, force: true });
  };
}
