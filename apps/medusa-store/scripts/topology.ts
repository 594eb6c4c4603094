import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  freePort,
  type RoundRobinProxy,
  type RunningPostgres,
  startEmbeddedPostgres,
  startRedis,
  startRoundRobinProxy,
  startSteps,
} from '@gatewaykit/cluster-testing';
import { keepFileEvidence, keepPostgresEvidence } from './evidence';
import { type RunningMedusa, runMedusa, startMedusa } from './medusa-cli';
import { markSetupDone, setupDone } from './setup-marker';

/**
 * The production topology of packages/medusa-provider/README.md ("Run it in production"), as real
 * processes on this machine: one Postgres and one Redis shared by two `medusa start` servers
 * (MEDUSA_WORKER_MODE=server) and one worker (MEDUSA_WORKER_MODE=worker), a round-robin proxy in front
 * of the servers. Used by `npm run topology` (QA) and by the cluster tests.
 */
export interface TopologyOptions {
  /** Holds the Postgres cluster and every process's log; outside the app folder. */
  dataDir: string;
  /** The gateway (the sandbox) every instance sends to; its callbacks come back through the proxy. */
  gatewayBaseUrl: string;
  gatewayNo?: string;
  signKey?: string;
  storefrontReturnUrl?: string;
  /** Port of the proxy (the store's public URL); 0 picks a free one. */
  proxyPort?: number;
  /** Extra environment for every instance (and the migrations). */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface Instance {
  name: 'server-a' | 'server-b' | 'worker';
  url: string;
  logFile: string;
  medusa: RunningMedusa;
}

export interface Topology {
  /** The proxy: the URL shoppers, the storefront and the gateway's callbacks use. */
  url: string;
  proxy: RoundRobinProxy;
  servers: [Instance, Instance];
  worker: Instance;
  databaseUrl: string;
  redisUrl: string;
  publishableKey: string;
  timings: Record<string, number>;
  stop(): Promise<void>;
}

export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const log = options.log ?? ((line: string) => console.log(line));
  const { timings, step } = startSteps(log, 'topology');
  mkdirSync(options.dataDir, { recursive: true });
  // Stopped in reverse: instances (they hold connections), proxy, Redis, Postgres last.
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of [...stops].reverse()) await stop().catch(() => undefined);
  };
  try {
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      // The same port as last time for this data directory: the database URL stays the same, so the
      // setup marker holds and a second run skips migrations and seed.
      const portFile = join(options.dataDir, 'postgres-port');
      const port = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : await freePort();
      writeFileSync(portFile, String(port));
      const postgres: RunningPostgres = await step(`postgres (embedded, port ${port})`, () =>
        startEmbeddedPostgres({ dataDir: join(options.dataDir, 'pg'), port }),
      );
      stops.push(() => postgres.stop());
      await postgres.ensureDatabase('medusa_store');
      databaseUrl = postgres.url('medusa_store');
    }
    let redisUrl = process.env.REDIS_URL;
    if (!redisUrl) {
      const redis = await step('redis (redis-server)', () => startRedis());
      stops.push(() => redis.stop());
      redisUrl = redis.url;
    }
    const [portA, portB, portWorker] = [await freePort(), await freePort(), await freePort()];
    const targets = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
    // The proxy first: its URL is the store's public URL, which the instances put in callback URLs.
    const proxy = await step('round-robin proxy', () => startRoundRobinProxy(targets));
    stops.push(() => proxy.close());
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV ?? 'development',
      MEDUSA_DISABLE_TELEMETRY: 'true',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      MEDUSA_BACKEND_URL: proxy.url,
      GATEWAYKIT_BASE_URL: options.gatewayBaseUrl,
      ...(options.gatewayNo ? { GATEWAYKIT_GATEWAY_NO: options.gatewayNo } : {}),
      ...(options.signKey ? { GATEWAYKIT_SIGN_KEY: options.signKey } : {}),
      ...(options.storefrontReturnUrl ? { STOREFRONT_RETURN_URL: options.storefrontReturnUrl } : {}),
      ...options.env,
    };
    const setupLog = join(options.dataDir, 'setup.log');
    if (setupDone(options.dataDir, databaseUrl)) {
      log('[topology] migrations and seed: already done for this database and Medusa version, skipped');
    } else {
      // Once for the cluster, before any instance starts (never by each instance).
      await step('migrations (medusa db:migrate)', () => runMedusa(['db:migrate'], env, setupLog));
      await step('seed', () => runMedusa(['exec', './src/scripts/seed.ts'], env, setupLog));
      markSetupDone(options.dataDir, databaseUrl);
    }
    const start = async (name: Instance['name'], port: number, mode: 'server' | 'worker') => {
      const logFile = join(options.dataDir, `${name}.log`);
      const medusa = await step(`${name} (medusa start, ${mode} mode, port ${port})`, () =>
        // Up to 5 minutes: a boot takes 10–60 s alone, several times that on a loaded 2-core machine.
        startMedusa(port, { ...env, MEDUSA_WORKER_MODE: mode }, logFile, 300_000),
      );
      stops.push(async () => {
        await medusa.stop();
        keepFileEvidence(logFile, `medusa-${name}`);
      });
      return { name, url: medusa.url, logFile, medusa };
    };
    // One at a time: three boots at once on a small machine take longer than one after the other.
    const serverA = await start('server-a', portA, 'server');
    const serverB = await start('server-b', portB, 'server');
    const worker = await start('worker', portWorker, 'worker');
    const publishableKey = await readPublishableKey(databaseUrl);
    const finalDatabaseUrl = databaseUrl;
    // CI scans what the run stored (docs/SECURITY.md): kept after the instances stop, before Postgres.
    const afterInstances = stops.length - 3;
    stops.splice(afterInstances, 0, async () => {
      await keepPostgresEvidence(finalDatabaseUrl, 'medusa-cluster-database').catch((error: unknown) =>
        log(`[topology] keeping database evidence failed: ${String(error)}`),
      );
      keepFileEvidence(setupLog, 'medusa-cluster-setup');
    });
    return {
      url: proxy.url,
      proxy,
      servers: [serverA, serverB],
      worker,
      databaseUrl,
      redisUrl,
      publishableKey,
      timings,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function readPublishableKey(databaseUrl: string): Promise<string> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ token: string }>(
      "SELECT token FROM api_key WHERE type = 'publishable' AND revoked_at IS NULL AND deleted_at IS NULL ORDER BY created_at LIMIT 1",
    );
    if (!rows[0]) throw new Error('no publishable API key: the seed did not run');
    return rows[0].token;
  } finally {
    await client.end();
  }
}
