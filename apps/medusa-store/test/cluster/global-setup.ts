import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepVitestExitCode } from '@gatewaykit/cluster-testing';
import { startSandbox } from '@gatewaykit/sandbox';
import type { TestProject } from 'vitest/node';
import { startTopology } from '../../scripts/topology';
import { GATEWAY_NO, SIGN_KEY, STOREFRONT_RETURN_URL } from '../support/global-setup';

/** How often the worker runs gatewaykit-reconcile-payments in the cluster tests (300 s in production). */
export const RECONCILE_INTERVAL_SECONDS = 4;

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrls: string[];
    serverPids: number[];
    serverLogs: string[];
    workerLog: string;
  }
}

/**
 * The production topology (scripts/topology.ts) against the sandbox: Postgres, Redis, two servers, one
 * worker, the round-robin proxy as the store's URL. The helpers of ../support talk to the proxy.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // GATEWAYKIT_CLUSTER_DATA_DIR: reuse a migrated cluster (kept, never deleted) when rerunning by hand.
  const reused = process.env.GATEWAYKIT_CLUSTER_DATA_DIR;
  const dataDir = reused || mkdtempSync(join(tmpdir(), 'gatewaykit-medusa-cluster-'));
  const sandbox = await startSandbox({
    port: 0,
    merchants: [{ gatewayNo: GATEWAY_NO, signKey: SIGN_KEY }],
    // Callback retries spread over minutes (a 15 s wait takes 1.5 s): a cart lock left by a killed
    // instance lives Medusa's 120 s, and the gateway keeps retrying past it.
    callbackTimeScale: 1 / 10,
    callbackTimeoutMs: 5_000,
  });
  const topology = await startTopology({
    dataDir,
    gatewayBaseUrl: sandbox.url,
    gatewayNo: GATEWAY_NO,
    signKey: SIGN_KEY,
    storefrontReturnUrl: STOREFRONT_RETURN_URL,
    env: {
      GATEWAYKIT_ALLOW_RAW_CARD_DATA: 'true',
      GATEWAYKIT_RECONCILE_INTERVAL_SECONDS: String(RECONCILE_INTERVAL_SECONDS),
    },
  });
  keepVitestExitCode();
  console.log(`[medusa-store cluster tests] boot timings ${JSON.stringify(topology.timings)}`);
  project.provide('storeUrl', topology.url);
  project.provide('publishableKey', topology.publishableKey);
  project.provide('sandboxUrl', sandbox.url);
  project.provide('logFile', topology.servers[0].logFile);
  project.provide('dataDir', dataDir);
  project.provide('databaseUrl', topology.databaseUrl);
  project.provide(
    'serverUrls',
    topology.servers.map((server) => server.url),
  );
  project.provide(
    'serverPids',
    topology.servers.map((server) => server.medusa.pid ?? 0),
  );
  project.provide(
    'serverLogs',
    topology.servers.map((server) => server.logFile),
  );
  project.provide('workerLog', topology.worker.logFile);
  return async () => {
    await topology.stop();
    await sandbox.close();
    if (!process.env.KEEP_TEST_DATA && !reused) rmSync(dataDir, { recursive: true, force: true });
  };
}
