import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  freePort,
  type RunningPostgres,
  startEmbeddedPostgres,
  startSteps,
} from '@gatewaykit/cluster-testing';
import pg from 'pg';
import { keepFileEvidence, keepPostgresEvidence } from './evidence';
import { runMedusa, startMedusa } from './medusa-cli';
import { markSetupDone, setupDone } from './setup-marker';

export interface BootOptions {
  /** Holds the embedded cluster and the logs; outside the app folder. */
  dataDir: string;
  /** Port of `medusa start`; 0 picks a free one. */
  port: number;
  /** Port of the embedded Postgres; 0 picks a free one. Ignored when DATABASE_URL is set. */
  postgresPort: number;
  databaseName?: string;
  /** Gateway base URL (the sandbox) and merchant; default: the medusa-config defaults. */
  gatewayBaseUrl?: string;
  gatewayNo?: string;
  signKey?: string;
  storefrontReturnUrl?: string;
  /** Extra environment for the app (e.g. bad options in tests). */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface BootedStore {
  url: string;
  databaseUrl: string;
  publishableKey: string;
  logFile: string;
  timings: Record<string, number>;
  stop(): Promise<void>;
}

/**
 * One command's worth of work: database (embedded unless DATABASE_URL), migrations, idempotent seed,
 * then `medusa start`. Used by `npm run start` and by the tests.
 */
export async function bootStore(options: BootOptions): Promise<BootedStore> {
  const log = options.log ?? ((line: string) => console.log(line));
  const { timings, step: timed } = startSteps(log, 'medusa-store');
  mkdirSync(options.dataDir, { recursive: true });
  const logFile = join(options.dataDir, 'medusa.log');
  let postgres: RunningPostgres | undefined;
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const port = options.postgresPort || (await freePort());
    postgres = await timed('postgres', () =>
      startEmbeddedPostgres({ dataDir: join(options.dataDir, 'pg'), port }),
    );
    const name = options.databaseName ?? 'medusa_store';
    await postgres.ensureDatabase(name);
    databaseUrl = postgres.url(name);
  }
  const port = options.port || (await freePort());
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    MEDUSA_DISABLE_TELEMETRY: 'true',
    DATABASE_URL: databaseUrl,
    MEDUSA_BACKEND_URL: `http://127.0.0.1:${port}`,
    ...(options.gatewayBaseUrl ? { GATEWAYKIT_BASE_URL: options.gatewayBaseUrl } : {}),
    ...(options.gatewayNo ? { GATEWAYKIT_GATEWAY_NO: options.gatewayNo } : {}),
    ...(options.signKey ? { GATEWAYKIT_SIGN_KEY: options.signKey } : {}),
    ...(options.storefrontReturnUrl ? { STOREFRONT_RETURN_URL: options.storefrontReturnUrl } : {}),
    ...options.env,
  };
  try {
    if (setupDone(options.dataDir, databaseUrl)) {
      log('[medusa-store] database already migrated and seeded by this Medusa version: skipping both');
    } else {
      await timed('migrate', () => runMedusa(['db:migrate'], env, logFile));
      await timed('seed', () => runMedusa(['exec', './src/scripts/seed.ts'], env, logFile));
      markSetupDone(options.dataDir, databaseUrl);
    }
    const server = await timed('start', () => startMedusa(port, env, logFile));
    const publishableKey = await readPublishableKey(databaseUrl);
    return {
      url: server.url,
      databaseUrl,
      publishableKey,
      logFile,
      timings,
      async stop() {
        await server.stop();
        // Before the database goes: CI scans what the run stored (docs/SECURITY.md).
        await keepPostgresEvidence(databaseUrl, 'medusa-database').catch((error: unknown) =>
          log(`[medusa-store] keeping database evidence failed: ${String(error)}`),
        );
        keepFileEvidence(logFile, 'medusa');
        await postgres?.stop();
      },
    };
  } catch (error) {
    await postgres?.stop();
    throw error;
  }
}

async function readPublishableKey(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
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
