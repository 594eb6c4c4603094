import { defineConfig, loadEnv } from '@medusajs/framework/utils';

loadEnv(process.env.NODE_ENV || 'development', process.cwd());

const env = (name: string, fallback: string): string => process.env[name] || fallback;

/**
 * A secret with a demo default: the default is public (it is in this file), so a production start
 * (NODE_ENV=production) without the variable is refused, naming it, instead of running on it.
 */
const secret = (name: string, demoDefault: string): string => {
  const value = process.env[name];
  if (value) return value;
  if (process.env.NODE_ENV === 'production') {
    throw new Error(`${name} must be set in production: the demo default is public`);
  }
  return demoDefault;
};

// The seeded admin's password (src/scripts/seed.ts reads it): its demo default is public too, and the
// admin API answers on every address the server listens on.
secret('MEDUSA_ADMIN_PASSWORD', 'supersecret');

// One options object for the three gatewaykit providers (card, hosted checkout, local payment).
// Defaults match the demo merchant of the local sandbox started by scripts/start.ts.
const gatewaykitOptions = {
  gatewayNo: env('GATEWAYKIT_GATEWAY_NO', '12345678'),
  signKey: secret('GATEWAYKIT_SIGN_KEY', 'sandbox-sign-key'),
  baseUrl: process.env.GATEWAYKIT_BASE_URL,
  environment: process.env.GATEWAYKIT_BASE_URL ? undefined : env('GATEWAYKIT_ENVIRONMENT', 'test'),
  backendUrl: env('MEDUSA_BACKEND_URL', 'http://localhost:9000'),
  storefrontReturnUrl: env('STOREFRONT_RETURN_URL', 'http://localhost:8000/checkout/return'),
  webSite: env('STOREFRONT_WEBSITE', 'localhost'),
  allowRawCardData: process.env.GATEWAYKIT_ALLOW_RAW_CARD_DATA === 'true',
  // Reconciliation thresholds (defaults 600 s and 1800 s); the tests shorten the second.
  reconcileAfterSeconds: process.env.GATEWAYKIT_RECONCILE_AFTER_SECONDS,
  failUnrecordedAfterSeconds: process.env.GATEWAYKIT_FAIL_UNRECORDED_AFTER_SECONDS,
  // Days back each run lists the gateway's chargebacks (default 180; 0: no chargeback pass).
  chargebackLookbackDays: process.env.GATEWAYKIT_CHARGEBACK_LOOKBACK_DAYS,
  notMadeCloseAfterSeconds: process.env.GATEWAYKIT_NOT_MADE_CLOSE_AFTER_SECONDS,
  // Verified status callbacks kept on the event bus and recorded by the worker (packages/medusa-provider/
  // README.md, "Callbacks in the worker"): on with Redis (a durable bus with retries) unless
  // GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER=false; always off without it (the in-memory bus has no retries
  // and loses what it holds when the process stops).
  recordCallbacksInWorker: process.env.REDIS_URL
    ? process.env.GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER || 'true'
    : 'false',
};

// A second merchant account (e.g. a test account beside the live one): its sessions, callbacks and
// returns are its own, and its key never settles a session of the first (docs/SECURITY.md).
const secondAccount = process.env.GATEWAYKIT_SECOND_GATEWAY_NO
  ? [
      {
        resolve: '@gatewaykit/medusa-provider/providers/gatewaykit',
        id: 'second',
        options: {
          ...gatewaykitOptions,
          gatewayNo: process.env.GATEWAYKIT_SECOND_GATEWAY_NO,
          signKey: secret('GATEWAYKIT_SECOND_SIGN_KEY', ''),
          chargebackLookbackDays: process.env.GATEWAYKIT_SECOND_CHARGEBACK_LOOKBACK_DAYS,
        },
      },
    ]
  : [];

// Production modules (packages/medusa-provider/README.md, "Run it in production"): with REDIS_URL set,
// locks, events, workflows and the cache are shared by every instance through Redis, so several servers
// and a worker behave as one store. Without it, Medusa's in-memory defaults (one process: the demo).
const redisUrl = process.env.REDIS_URL || undefined;
const productionModules = redisUrl
  ? [
      {
        resolve: '@medusajs/medusa/locking',
        options: {
          // Locks taken without their own timeout (a cart completion's inventory lock among them) wait
          // 5 s by default; a paid cart whose completion waits longer for a best-selling item's lock
          // fails, and Medusa refunds the payment. Medusa 2.21 hands a locking provider the module's
          // options, not its own, so this belongs here (packages/medusa-provider/README.md).
          waitLockingTimeout: 30,
          providers: [
            {
              resolve: '@medusajs/medusa/locking-redis',
              id: 'locking-redis',
              is_default: true,
              options: { redisUrl },
            },
          ],
        },
      },
      {
        resolve: '@medusajs/medusa/event-bus-redis',
        options: {
          redisUrl,
          // How many events the worker runs at once (BullMQ's default is one). The worker records the
          // kept gateway callbacks (recordCallbacksInWorker), each mostly waiting on the database and
          // locks: in the cluster bench on a quiet 2-core machine, 41 first callbacks had all their
          // orders 6–6.5 s after the last answer with 10, 8–8.5 s one at a time.
          workerOptions: { concurrency: Number(env('MEDUSA_EVENT_BUS_CONCURRENCY', '10')) },
        },
      },
      { resolve: '@medusajs/medusa/workflow-engine-redis', options: { redis: { redisUrl } } },
      {
        resolve: '@medusajs/medusa/caching',
        options: {
          providers: [
            {
              resolve: '@medusajs/medusa/caching-redis',
              id: 'caching-redis',
              is_default: true,
              options: { redisUrl },
            },
          ],
        },
      },
    ]
  : [];

// Only for `npm run bench` (scripts/bench.ts): a no-network provider that captures at once, the baseline
// of Medusa's own cost of a captured payment. Never registered otherwise, never in a region by default.
// A production start refuses the switch: that provider answers captured and takes no money.
if (process.env.NODE_ENV === 'production' && process.env.GATEWAYKIT_BENCH_BASELINES?.trim()) {
  throw new Error(
    'NODE_ENV=production: unset GATEWAYKIT_BENCH_BASELINES; it is for benchmarks only (a payment provider that answers captured with no money)',
  );
}
const benchBaselines =
  process.env.GATEWAYKIT_BENCH_BASELINES === 'true'
    ? [{ resolve: './src/modules/instant-capture', id: 'bench', options: {} }]
    : [];

const workerMode = process.env.MEDUSA_WORKER_MODE as 'shared' | 'worker' | 'server' | undefined;

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    // Sessions of the admin and of logged-in customers live in Redis too, so any instance serves them.
    ...(redisUrl ? { redisUrl } : {}),
    // server: API routes only; worker: subscribers and scheduled jobs only; shared (default): both.
    workerMode: workerMode || 'shared',
    http: {
      storeCors: env('STORE_CORS', 'http://localhost:8000'),
      adminCors: env('ADMIN_CORS', 'http://localhost:9000'),
      authCors: env('AUTH_CORS', 'http://localhost:8000,http://localhost:9000'),
      jwtSecret: secret('JWT_SECRET', 'supersecret'),
      cookieSecret: secret('COOKIE_SECRET', 'supersecret'),
    },
  },
  // The caching module is behind a feature flag in Medusa 2.21; it is turned on with the Redis provider.
  ...(redisUrl ? { featureFlags: { caching: true } } : {}),
  admin: { disable: process.env.MEDUSA_ADMIN !== 'true' || workerMode === 'worker' },
  plugins: [{ resolve: '@gatewaykit/medusa-provider', options: {} }],
  modules: [
    {
      resolve: '@medusajs/medusa/payment',
      options: {
        providers: [
          {
            resolve: '@gatewaykit/medusa-provider/providers/gatewaykit',
            id: 'gatewaykit',
            options: gatewaykitOptions,
          },
          ...secondAccount,
          ...benchBaselines,
        ],
      },
    },
    ...productionModules,
  ],
});
