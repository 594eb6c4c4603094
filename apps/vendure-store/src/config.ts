import path from 'node:path';
import { GatewaykitPlugin, KEPT_CALLBACKS_QUEUE, type ReconcileOptions } from '@gatewaykit/vendure-plugin';
import {
  DefaultLogger,
  DefaultSchedulerPlugin,
  LogLevel,
  RedisCachePlugin,
  type VendureConfig,
} from '@vendure/core';
import { BullMQJobQueuePlugin } from '@vendure/job-queue-plugin/package/bullmq';
import { maxOrderTotalChecker } from './eligibility-checker';
import { orderOptionsFor } from './failing-order-process';
import { refundProcessFor } from './failing-refund-process';
import { noopPaymentHandler } from './noop-payment-handler';
import { refuseDemoDefaultsInProduction } from './production-env';

export interface StoreSettings {
  port: number;
  /** sql.js database file; kept outside the app folder so watchers and git ignore it. */
  dbPath: string;
  /** Public URL of this server, used for the gateway's callbackUrl and returnUrl. */
  publicUrl: string;
  storefrontOrderUrl: string;
  logLevel: LogLevel;
  /** Adds the no-op baseline payment handler (benchmarks only, never in a real store). */
  benchBaseline: boolean;
  /** Tests only: an order process that throws after settling orders shipped to this city (failing-order-process.ts). */
  failAfterSettleCity: string | undefined;
  /** Tests only: a refund process that throws once a refund given this reason is Settled (failing-refund-process.ts). */
  failAfterRefundReason: string | undefined;
  /** Per-request timeout towards the gateway (GATEWAY_TIMEOUT_MS), else the plugin's default. */
  gatewayTimeoutMs: number | undefined;
  /** Write every commit to dbPath (sql.js autoSave). Off only for benchmarks: the DB then lives in memory. */
  persist: boolean;
  /** Reconciliation thresholds (GATEWAYKIT_RECONCILE_*), else the plugin's defaults. */
  reconcile: ReconcileOptions;
  /**
   * The plugin's PCI opt-in. On in the demo (raw sandbox test cards); GATEWAYKIT_ALLOW_RAW_CARD_DATA=0 (or false) runs
   * the store as most merchants must: cards only through the card element.
   */
  allowRawCardData: boolean;
  /**
   * `demo` (default): one process on sql.js with `synchronize`. `production`: PostgreSQL with the
   * committed migrations, BullMQ job queue and cache on Redis, several server instances plus a worker
   * (GATEWAYKIT_TOPOLOGY=production, with DATABASE_URL). See src/topology/.
   */
  topology: 'demo' | 'production';
  /**
   * `sqljs` (the demo's default) or `postgres` (always in production; in the one-process demo with
   * GATEWAYKIT_DATABASE=postgres and DATABASE_URL, so the app's test suites also run on the database a
   * real store uses: the app README, "Tests").
   */
  database: 'sqljs' | 'postgres';
  /** PostgreSQL connection URL (the `postgres` database only; sql.js ignores it). */
  databaseUrl: string | undefined;
  /** Redis of the job queue and cache (production): REDIS_URL, default redis://127.0.0.1:6379. */
  redisUrl: string;
  /**
   * Where scheduled tasks (the plugin's reconciliation) run in production: the worker only (default),
   * or every process (GATEWAYKIT_TASKS_EVERYWHERE=1, to prove the scheduler's lock across instances).
   */
  tasksInWorkerOnly: boolean;
  /**
   * The plugin's `recordCallbacksInWorker`: on in production (BullMQ and a worker), where a status
   * callback is answered once it is on the job queue (GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER=0 or false
   * records it in the request instead); off in the one-process demo, whose job queue is in memory.
   */
  recordCallbacksInWorker: boolean;
  /** Who the Admin API's superadmin is (SUPERADMIN_USERNAME / SUPERADMIN_PASSWORD). */
  superadmin: { identifier: string; password: string };
  /** Signs the session cookie (COOKIE_SECRET). */
  cookieSecret: string;
  /**
   * NODE_ENV=production: the storefront origins the APIs answer (CORS_ORIGINS, comma-separated), with
   * Vendure's CSRF prevention on. Undefined in the demo, which keeps Vendure's development defaults.
   */
  corsOrigins: string[] | undefined;
}

export const APP_ROOT = path.resolve(__dirname, '..', '..');
export const DEFAULT_DATA_DIR = path.resolve(APP_ROOT, '..', '..', '.data', 'vendure-store');

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): StoreSettings {
  refuseDemoDefaultsInProduction(env);
  const port = Number(env.PORT ?? 3100);
  const publicUrl = env.PUBLIC_URL ?? `http://127.0.0.1:${port}`;
  return {
    port,
    dbPath: env.DB_PATH ?? path.join(DEFAULT_DATA_DIR, 'store.sqlite'),
    publicUrl,
    storefrontOrderUrl: env.STOREFRONT_ORDER_URL ?? `${publicUrl}/order-confirmation/{code}`,
    benchBaseline: env.GATEWAYKIT_BENCH === '1',
    failAfterSettleCity: env.GATEWAYKIT_TEST_FAIL_AFTER_SETTLE_CITY || undefined,
    failAfterRefundReason: env.GATEWAYKIT_TEST_FAIL_AFTER_REFUND_REASON || undefined,
    persist: env.DB_PERSIST !== '0',
    gatewayTimeoutMs: env.GATEWAY_TIMEOUT_MS ? Number(env.GATEWAY_TIMEOUT_MS) : undefined,
    // On for the demo (the sandbox's test cards are typed in); in production only when asked for.
    allowRawCardData: env.GATEWAYKIT_ALLOW_RAW_CARD_DATA
      ? !['0', 'false'].includes(env.GATEWAYKIT_ALLOW_RAW_CARD_DATA)
      : env.NODE_ENV !== 'production',
    reconcile: {
      ...(env.GATEWAYKIT_RECONCILE_SCHEDULE ? { schedule: env.GATEWAYKIT_RECONCILE_SCHEDULE } : {}),
      ...(env.GATEWAYKIT_RECONCILE_AFTER_MS ? { afterMs: Number(env.GATEWAYKIT_RECONCILE_AFTER_MS) } : {}),
      ...(env.GATEWAYKIT_RECONCILE_NO_RECORD_MS
        ? { noRecordAfterMs: Number(env.GATEWAYKIT_RECONCILE_NO_RECORD_MS) }
        : {}),
      ...(env.GATEWAYKIT_RECONCILE_BATCH_SIZE
        ? { batchSize: Number(env.GATEWAYKIT_RECONCILE_BATCH_SIZE) }
        : {}),
      ...(env.GATEWAYKIT_RECONCILE_MAX_AGE_MS
        ? { maxAgeMs: Number(env.GATEWAYKIT_RECONCILE_MAX_AGE_MS) }
        : {}),
      ...(env.GATEWAYKIT_RECONCILE_NOT_MADE_CLOSE_MS
        ? { notMadeCloseAfterMs: Number(env.GATEWAYKIT_RECONCILE_NOT_MADE_CLOSE_MS) }
        : {}),
      // Checked by the plugin: anything but whole days from 0 to 366 stops the start, naming it.
      ...(env.GATEWAYKIT_RECONCILE_CHARGEBACK_DAYS
        ? { chargebackLookbackDays: wholeNumber(env.GATEWAYKIT_RECONCILE_CHARGEBACK_DAYS) }
        : {}),
    },
    // Only the explicit switch: DATABASE_URL alone may be Medusa's, in the same shell as `npm run demo`.
    topology: env.GATEWAYKIT_TOPOLOGY === 'production' ? 'production' : 'demo',
    database:
      env.GATEWAYKIT_TOPOLOGY === 'production' || env.GATEWAYKIT_DATABASE === 'postgres'
        ? 'postgres'
        : 'sqljs',
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    tasksInWorkerOnly: env.GATEWAYKIT_TASKS_EVERYWHERE !== '1',
    recordCallbacksInWorker:
      env.GATEWAYKIT_TOPOLOGY === 'production' &&
      !['0', 'false'].includes(env.GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER ?? ''),
    superadmin: {
      identifier: env.SUPERADMIN_USERNAME || 'superadmin',
      password: env.SUPERADMIN_PASSWORD || 'superadmin',
    },
    cookieSecret: env.COOKIE_SECRET || 'gatewaykit-demo-cookie-secret',
    corsOrigins:
      env.NODE_ENV === 'production'
        ? (env.CORS_ORIGINS ?? '')
            .split(',')
            .map((origin) => origin.trim())
            .filter(Boolean)
        : undefined,
    logLevel:
      env.LOG_LEVEL === 'debug' ? LogLevel.Debug : env.LOG_LEVEL === 'info' ? LogLevel.Info : LogLevel.Warn,
  };
}

export function buildConfig(settings: StoreSettings): VendureConfig {
  const config: VendureConfig = {
    apiOptions: {
      port: settings.port,
      hostname: '127.0.0.1',
      adminApiPath: 'admin-api',
      shopApiPath: 'shop-api',
      // Production: only the listed storefronts, and no cross-site form posts (login CSRF).
      ...(settings.corsOrigins
        ? { cors: { origin: settings.corsOrigins, credentials: true }, csrfPrevention: true }
        : {}),
    },
    authOptions: {
      tokenMethod: ['bearer', 'cookie'],
      requireVerification: false,
      superadminCredentials: settings.superadmin,
      cookieOptions: { secret: settings.cookieSecret },
    },
    dbConnectionOptions:
      settings.database === 'postgres' ? postgresOptions(settings) : sqljsOptions(settings),
    paymentOptions: {
      paymentMethodHandlers: settings.benchBaseline ? [noopPaymentHandler] : [],
      paymentMethodEligibilityCheckers: [maxOrderTotalChecker],
      ...(settings.failAfterRefundReason
        ? { refundProcess: refundProcessFor(settings.failAfterRefundReason) }
        : {}),
    },
    orderOptions: orderOptionsFor(settings.failAfterSettleCity),
    logger: new DefaultLogger({ level: settings.logLevel }),
    ...platformParts(settings),
  };
  config.plugins = [
    ...(config.plugins ?? []),
    GatewaykitPlugin.init({
      vendureHost: settings.publicUrl,
      storefrontOrderUrl: settings.storefrontOrderUrl,
      // Demo against the sandbox: raw test cards may be saved and charged (unless turned off).
      allowRawCardData: settings.allowRawCardData,
      ...(settings.gatewayTimeoutMs ? { gatewayTimeoutMs: settings.gatewayTimeoutMs } : {}),
      reconcile: settings.reconcile,
      recordCallbacksInWorker: settings.recordCallbacksInWorker,
    }),
  ];
  return config;
}

type PlatformParts = Pick<VendureConfig, 'schedulerOptions' | 'plugins'>;

function platformParts(settings: StoreSettings): PlatformParts {
  return settings.topology === 'production' ? productionParts(settings) : demoParts();
}

function sqljsOptions(settings: StoreSettings): VendureConfig['dbConnectionOptions'] {
  return {
    type: 'sqljs',
    location: settings.dbPath,
    autoSave: settings.persist,
    // Demo store: the schema follows the code (plugin entity + custom field). Production uses migrations.
    synchronize: true,
    logging: false,
  };
}

/** The committed migrations (sources); built to dist/migrations/*.js, which is what the servers load. */
export const MIGRATIONS_DIR = path.join(APP_ROOT, 'migrations');

function postgresOptions(settings: StoreSettings): VendureConfig['dbConnectionOptions'] {
  if (!settings.databaseUrl)
    throw new Error(
      'PostgreSQL (production topology or GATEWAYKIT_DATABASE=postgres): DATABASE_URL is not set',
    );
  return {
    type: 'postgres',
    url: settings.databaseUrl,
    // The schema only changes through the committed migrations (npm run migration -w @gatewaykit/vendure-store).
    synchronize: false,
    migrationsRun: false,
    migrations: [path.join(APP_ROOT, 'dist', 'migrations', '*.js')],
    logging: false,
    // Each instance keeps a small pool: several instances and a worker share one PostgreSQL.
    extra: { max: 10 },
  };
}

/** One process serves the APIs and the job queue, so it also runs the scheduled tasks. */
function demoParts(): PlatformParts {
  return {
    // The scheduler plugin's database lock runs each task once per interval.
    schedulerOptions: { runTasksInWorkerOnly: false },
    plugins: [DefaultSchedulerPlugin.init({ manualTriggerCheckInterval: 2000 })],
  };
}

/**
 * Several server instances and one worker: jobs go through BullMQ on the shared Redis (a job runs
 * once, in the worker), the cache (sessions, active orders) lives in Redis so every instance sees the
 * same sessions, and the scheduler runs the plugin's reconciliation once per interval for the whole
 * cluster (its task row in PostgreSQL is the lock), in the worker unless told otherwise.
 */
function productionParts(settings: StoreSettings): PlatformParts {
  const redis = new URL(settings.redisUrl);
  const connection = {
    host: redis.hostname,
    port: Number(redis.port || 6379),
    ...(redis.password ? { password: decodeURIComponent(redis.password) } : {}),
  };
  return {
    schedulerOptions: { runTasksInWorkerOnly: settings.tasksInWorkerOnly },
    plugins: [
      BullMQJobQueuePlugin.init({
        connection: { ...connection, maxRetriesPerRequest: null },
        // Kept callbacks are each a short recording that mostly waits on PostgreSQL: several at once.
        concurrency: (queueName) => (queueName === KEPT_CALLBACKS_QUEUE ? 10 : 3),
        workerOptions: { removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } },
      }),
      RedisCachePlugin.init({ redisOptions: connection, namespace: 'gatewaykit-vendure-store' }),
      DefaultSchedulerPlugin.init({ manualTriggerCheckInterval: 2000 }),
    ],
  };
}

/** Digits only, else NaN (refused by the check it reaches): a blank or a sign is never 0. */
function wholeNumber(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : Number.NaN;
}
