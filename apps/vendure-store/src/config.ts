import path from 'node:path';
import { GatewaykitPlugin, type ReconcileOptions } from '@gatewaykit/vendure-plugin';
import { DefaultLogger, DefaultSchedulerPlugin, LogLevel, type VendureConfig } from '@vendure/core';
import { maxOrderTotalChecker } from './eligibility-checker';
import { noopPaymentHandler } from './noop-payment-handler';

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
}

export const APP_ROOT = path.resolve(__dirname, '..', '..');
export const DEFAULT_DATA_DIR = path.resolve(APP_ROOT, '..', '..', '.data', 'vendure-store');

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): StoreSettings {
  const port = Number(env.PORT ?? 3100);
  const publicUrl = env.PUBLIC_URL ?? `http://127.0.0.1:${port}`;
  return {
    port,
    dbPath: env.DB_PATH ?? path.join(DEFAULT_DATA_DIR, 'store.sqlite'),
    publicUrl,
    storefrontOrderUrl: env.STOREFRONT_ORDER_URL ?? `${publicUrl}/order-confirmation/{code}`,
    benchBaseline: env.GATEWAYKIT_BENCH === '1',
    persist: env.DB_PERSIST !== '0',
    gatewayTimeoutMs: env.GATEWAY_TIMEOUT_MS ? Number(env.GATEWAY_TIMEOUT_MS) : undefined,
    allowRawCardData: !['0', 'false'].includes(env.GATEWAYKIT_ALLOW_RAW_CARD_DATA ?? ''),
    reconcile: {
      ...(env.GATEWAYKIT_RECONCILE_SCHEDULE ? { schedule: env.GATEWAYKIT_RECONCILE_SCHEDULE } : {}),
      ...(env.GATEWAYKIT_RECONCILE_AFTER_MS ? { afterMs: Number(env.GATEWAYKIT_RECONCILE_AFTER_MS) } : {}),
      ...(env.GATEWAYKIT_RECONCILE_NO_RECORD_MS
        ? { noRecordAfterMs: Number(env.GATEWAYKIT_RECONCILE_NO_RECORD_MS) }
        : {}),
    },
    logLevel:
      env.LOG_LEVEL === 'debug' ? LogLevel.Debug : env.LOG_LEVEL === 'info' ? LogLevel.Info : LogLevel.Warn,
  };
}

export function buildConfig(settings: StoreSettings): VendureConfig {
  return {
    apiOptions: {
      port: settings.port,
      hostname: '127.0.0.1',
      adminApiPath: 'admin-api',
      shopApiPath: 'shop-api',
    },
    authOptions: {
      tokenMethod: ['bearer', 'cookie'],
      requireVerification: false,
      superadminCredentials: { identifier: 'superadmin', password: 'superadmin' },
      cookieOptions: { secret: 'gatewaykit-demo-cookie-secret' },
    },
    dbConnectionOptions: {
      type: 'sqljs',
      location: settings.dbPath,
      autoSave: settings.persist,
      // Demo store: the schema follows the code (plugin entity + custom field). Use migrations in production.
      synchronize: true,
      logging: false,
    },
    paymentOptions: {
      paymentMethodHandlers: settings.benchBaseline ? [noopPaymentHandler] : [],
      paymentMethodEligibilityCheckers: [maxOrderTotalChecker],
    },
    logger: new DefaultLogger({ level: settings.logLevel }),
    // One process serves the APIs and the job queue, so it also runs the scheduled tasks (the
    // plugin's reconciliation); the scheduler plugin's database lock runs each once per interval.
    schedulerOptions: { runTasksInWorkerOnly: false },
    plugins: [
      DefaultSchedulerPlugin.init({ manualTriggerCheckInterval: 2000 }),
      GatewaykitPlugin.init({
        vendureHost: settings.publicUrl,
        storefrontOrderUrl: settings.storefrontOrderUrl,
        // Demo against the sandbox: raw test cards may be saved and charged (unless turned off).
        allowRawCardData: settings.allowRawCardData,
        ...(settings.gatewayTimeoutMs ? { gatewayTimeoutMs: settings.gatewayTimeoutMs } : {}),
        reconcile: settings.reconcile,
      }),
    ],
  };
}
