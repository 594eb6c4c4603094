import path from 'node:path';
import { stopOnSignals } from '@gatewaykit/cluster-testing';
import { DEFAULT_DATA_DIR } from './config';
import { DEMO_MERCHANTS, gatewaysFromEnv } from './gateways';
import { startCluster } from './topology/cluster';

/**
 * `npm run topology -w @gatewaykit/vendure-store`: the production topology on this machine for QA.
 * Redis, PostgreSQL (embedded unless DATABASE_URL), the migrations, two server instances, one worker
 * and a round-robin proxy (TOPOLOGY_PORT, default 3200) in front; the gateway sandbox unless
 * GATEWAY_BASE_URL is set. Ctrl-C stops everything.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const step = (text: string) =>
    console.log(`[topology +${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`);
  let gateways = gatewaysFromEnv();
  let closeSandbox = async () => {};
  if (!gateways) {
    const { startSandbox } = await import('@gatewaykit/sandbox');
    const sandbox = await startSandbox({
      port: Number(process.env.SANDBOX_PORT ?? 8600),
      merchants: [DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp],
    });
    closeSandbox = () => sandbox.close();
    step(`gateway sandbox on ${sandbox.url}`);
    gateways = {
      main: { ...DEMO_MERCHANTS.main, baseUrl: sandbox.url },
      jp: { ...DEMO_MERCHANTS.jp, baseUrl: sandbox.url },
    };
  }
  const cluster = await startCluster({
    gateways,
    servers: Number(process.env.TOPOLOGY_SERVERS ?? 2),
    dataDir:
      process.env.TOPOLOGY_DATA_DIR ?? path.join(path.dirname(DEFAULT_DATA_DIR), 'vendure-topology', 'pg'),
    ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
    ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
    proxyPort: Number(process.env.TOPOLOGY_PORT ?? 3200),
    env: process.env.LOG_LEVEL ? { LOG_LEVEL: process.env.LOG_LEVEL } : {},
    log: step,
    onProcessLine: (name, line) => {
      if (process.env.TOPOLOGY_VERBOSE === '1') console.log(`  [${name}] ${line}`);
    },
  });
  step('ready');
  console.log(
    [
      '',
      `  Shop API    ${cluster.url}/shop-api   (round robin over ${cluster.servers.map((s) => s.url).join(', ')})`,
      `  Admin API   ${cluster.url}/admin-api  (superadmin / superadmin)`,
      `  Health      ${cluster.servers.map((s) => `${s.url}/health`).join(', ')}, worker ${cluster.worker.url}/health`,
      `  PostgreSQL  ${cluster.databaseUrl.replace(/:[^:@/]*@/, ':***@')}`,
      `  Redis       ${cluster.redisUrl.replace(/:[^:@/]*@/, ':***@')}`,
      '',
      'Ctrl-C stops everything.',
    ].join('\n'),
  );
  stopOnSignals(async () => {
    step('stopping');
    await cluster.stop();
    await closeSandbox();
    step('stopped');
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
