import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopOnSignals } from '@gatewaykit/cluster-testing';
import { startSandbox } from '@gatewaykit/sandbox';
import { bootStore } from './boot';

/**
 * `npm run start -w apps/medusa-store`: embedded Postgres (unless DATABASE_URL), the local gateway
 * sandbox (unless GATEWAYKIT_BASE_URL), migrations, idempotent seed, `medusa start`. Data stays in
 * GATEWAYKIT_MEDUSA_DATA_DIR (default: <tmp>/gatewaykit-medusa-store), so a second start reuses it.
 */
async function main(): Promise<void> {
  const dataDir = process.env.GATEWAYKIT_MEDUSA_DATA_DIR || join(tmpdir(), 'gatewaykit-medusa-store');
  const gatewayNo = process.env.GATEWAYKIT_GATEWAY_NO || '12345678';
  const signKey = process.env.GATEWAYKIT_SIGN_KEY || 'sandbox-sign-key';
  const sandbox = process.env.GATEWAYKIT_BASE_URL
    ? undefined
    : await startSandbox({
        port: Number(process.env.SANDBOX_PORT || 8600), // the sandbox CLI's port (README: one port everywhere)
        merchants: [{ gatewayNo, signKey }],
        callbackTimeScale: 1,
      });
  const store = await bootStore({
    dataDir,
    port: Number(process.env.PORT || 9000),
    postgresPort: Number(process.env.POSTGRES_PORT || 54329),
    gatewayBaseUrl: process.env.GATEWAYKIT_BASE_URL || sandbox?.url,
    gatewayNo,
    signKey,
  });
  console.log(`[medusa-store] ready at ${store.url} (store API key ${store.publishableKey})`);
  if (sandbox) console.log(`[medusa-store] gateway sandbox at ${sandbox.url}`);
  console.log(`[medusa-store] data and logs in ${dataDir}`);
  stopOnSignals(async () => {
    await store.stop();
    await sandbox?.close();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
