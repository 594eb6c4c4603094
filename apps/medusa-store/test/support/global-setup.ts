import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepVitestExitCode } from '@gatewaykit/cluster-testing';
import { startSandbox } from '@gatewaykit/sandbox';
import type { TestProject } from 'vitest/node';
import { bootStore } from '../../scripts/boot';

export const GATEWAY_NO = '12345678';
export const SIGN_KEY = 'medusa-store-test-sign-key';
/** A second merchant account configured beside the first (provider id suffix `second`). */
export const SECOND_GATEWAY_NO = '87654321';
export const SECOND_SIGN_KEY = 'medusa-store-second-account-key';
export const STOREFRONT_RETURN_URL = 'http://storefront.test/checkout/return';
/** The app's failUnrecordedAfterSeconds (1800 in production). */
export const FAIL_UNRECORDED_AFTER_SECONDS = 3;
/** A refund whose record was lost may be closed as not made this long after it was sent (refund-record-lost.test.ts). */
export const NOT_MADE_CLOSE_AFTER_SECONDS = 2 * 60 * 60;

declare module 'vitest' {
  export interface ProvidedContext {
    storeUrl: string;
    publishableKey: string;
    sandboxUrl: string;
    logFile: string;
    dataDir: string;
    databaseUrl: string;
  }
}

/** Boots sandbox + embedded Postgres + the real Medusa app on free ports; tears all down after the run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatewaykit-medusa-test-'));
  const sandbox = await startSandbox({
    port: 0,
    // The second account exists at the gateway too: card-element.test.ts makes a payment method under
    // its token and shows the first account's provider never charges it.
    merchants: [
      { gatewayNo: GATEWAY_NO, signKey: SIGN_KEY },
      { gatewayNo: SECOND_GATEWAY_NO, signKey: SECOND_SIGN_KEY },
    ],
    // The pending test card settles 10 s (real) after the charge: after the cart completion, as with a
    // real asynchronous payment. Callback retries stay compressed (default time scale 1/1000).
    pendingDelayMs: 10_000_000,
  });
  const store = await bootStore({
    dataDir,
    port: 0,
    postgresPort: 0,
    gatewayBaseUrl: sandbox.url,
    gatewayNo: GATEWAY_NO,
    signKey: SIGN_KEY,
    storefrontReturnUrl: STOREFRONT_RETURN_URL,
    env: {
      GATEWAYKIT_ALLOW_RAW_CARD_DATA: 'true',
      GATEWAYKIT_SECOND_GATEWAY_NO: SECOND_GATEWAY_NO,
      GATEWAYKIT_SECOND_SIGN_KEY: SECOND_SIGN_KEY,
      // The second account runs without the chargeback pass (chargeback.test.ts: it asks nothing).
      GATEWAYKIT_SECOND_CHARGEBACK_LOOKBACK_DAYS: '0',
      // A charge the gateway has no record of is failed this long after it was sent (reconcile.test.ts).
      GATEWAYKIT_FAIL_UNRECORDED_AFTER_SECONDS: String(FAIL_UNRECORDED_AFTER_SECONDS),
      GATEWAYKIT_NOT_MADE_CLOSE_AFTER_SECONDS: String(NOT_MADE_CLOSE_AFTER_SECONDS),
    },
  });
  keepVitestExitCode();
  console.log(`[medusa-store tests] boot timings ${JSON.stringify(store.timings)}`);
  project.provide('storeUrl', store.url);
  project.provide('publishableKey', store.publishableKey);
  project.provide('sandboxUrl', sandbox.url);
  project.provide('logFile', store.logFile);
  project.provide('dataDir', dataDir);
  project.provide('databaseUrl', store.databaseUrl);
  return async () => {
    await store.stop();
    await sandbox.close();
    if (!process.env.KEEP_TEST_DATA) rmSync(dataDir, { recursive: true, force: true });
  };
}
