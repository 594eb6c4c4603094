import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopOnSignals } from '@gatewaykit/cluster-testing';
import { startSandbox } from '@gatewaykit/sandbox';
import { startTopology } from './topology';

/**
 * `npm run topology -w @gatewaykit/medusa-store`: the two-instance production topology for QA (the
 * local gateway sandbox unless GATEWAYKIT_BASE_URL, embedded Postgres unless DATABASE_URL, Redis from
 * Debian's redis-server unless REDIS_URL, migrations once, two servers, one worker, a round-robin
 * proxy), with progress per step. Data and logs in GATEWAYKIT_TOPOLOGY_DATA_DIR (default
 * <tmp>/gatewaykit-medusa-topology); a second run reuses the database. Ctrl-C stops everything.
 */
async function main(): Promise<void> {
  const dataDir = process.env.GATEWAYKIT_TOPOLOGY_DATA_DIR || join(tmpdir(), 'gatewaykit-medusa-topology');
  const gatewayNo = process.env.GATEWAYKIT_GATEWAY_NO || '12345678';
  const signKey = process.env.GATEWAYKIT_SIGN_KEY || 'sandbox-sign-key';
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  if (!process.env.GATEWAYKIT_BASE_URL) {
    console.log('[topology] gateway sandbox …');
    sandbox = await startSandbox({
      port: Number(process.env.SANDBOX_PORT || 0),
      merchants: [{ gatewayNo, signKey }],
      callbackTimeScale: 1,
    });
    console.log(`[topology] gateway sandbox: ${sandbox.url}`);
  }
  const topology = await startTopology({
    dataDir,
    gatewayBaseUrl: process.env.GATEWAYKIT_BASE_URL || sandbox!.url,
    gatewayNo,
    signKey,
  });
  const rows = [
    ['store (proxy, round robin)', topology.url],
    ...topology.servers.map((server) => [`${server.name} (server mode)`, server.url]),
    [`${topology.worker.name} (worker mode, /health only)`, topology.worker.url],
    // Passwords stay out of the terminal (and its scrollback and CI logs).
    ['postgres', topology.databaseUrl.replace(/:[^:@/]*@/, ':***@')],
    ['redis', topology.redisUrl.replace(/:[^:@/]*@/, ':***@')],
    ...(sandbox ? [['gateway sandbox', sandbox.url]] : []),
    ['publishable key', topology.publishableKey],
    ['admin login', 'admin@gatewaykit.test / supersecret'],
    ['data and logs', dataDir],
  ];
  console.log('\n[topology] ready:');
  for (const [what, where] of rows) console.log(`  ${what!.padEnd(34)} ${where}`);
  console.log('\nCtrl-C stops everything.');
  stopOnSignals(async () => {
    console.log('[topology] stopping …');
    await topology.stop();
    await sandbox?.close();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
