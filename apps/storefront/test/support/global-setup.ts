import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureChromium, freePort, keepVitestExitCode } from '@gatewaykit/cluster-testing';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { STOREFRONT_ROOT } from '../../server/serve';
import { startStack } from '../../server/stack';

declare module 'vitest' {
  export interface ProvidedContext {
    storefrontUrl: string;
    sandboxUrl: string;
    medusaUrl: string;
    vendureUrl: string;
    publishableKey: string;
  }
}

export interface TestStackUrls {
  storefrontUrl: string;
  sandboxUrl: string;
  medusaUrl: string;
  vendureUrl: string;
  publishableKey: string;
}

/** One sandbox, both stores and the storefront on free ports with throwaway data. */
export async function bootTestStack(): Promise<{ urls: TestStackUrls; close(): Promise<void> }> {
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
  console.log(`[storefront tests] stack ready in ${Date.now() - started} ms (data in ${dataDir})`);
  return {
    urls: {
      storefrontUrl: stack.storefront.url,
      sandboxUrl: stack.sandbox.url,
      medusaUrl: stack.medusa.url,
      vendureUrl: stack.vendure.url,
      publishableKey: stack.medusa.publishableKey,
    },
    close: async () => {
      await stack.close();
      if (!process.env.KEEP_TEST_DATA) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The stack for the whole run, booted here; or, with STOREFRONT_TEST_STACK naming the URL file of a
 * stack kept running by test/support/keep-stack.ts, that one (for repeated runs while working).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const reused = process.env.STOREFRONT_TEST_STACK;
  const booted = reused ? undefined : await bootTestStack();
  const urls: TestStackUrls = booted
    ? booted.urls
    : (JSON.parse(readFileSync(reused!, 'utf8')) as TestStackUrls);
  // Only a stack booted here started embedded Postgres, whose exit hook is there to remove.
  if (booted) keepVitestExitCode();
  for (const key of Object.keys(urls) as (keyof TestStackUrls)[]) project.provide(key, urls[key]);
  return async () => {
    await booted?.close();
  };
}
