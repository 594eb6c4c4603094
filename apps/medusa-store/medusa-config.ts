import { defineConfig, loadEnv } from '@medusajs/framework/utils';

loadEnv(process.env.NODE_ENV || 'development', process.cwd());

const env = (name: string, fallback: string): string => process.env[name] || fallback;

// One options object for the three gatewaykit providers (card, hosted checkout, local payment).
// Defaults match the demo merchant of the local sandbox started by scripts/start.ts.
const gatewaykitOptions = {
  gatewayNo: env('GATEWAYKIT_GATEWAY_NO', '12345678'),
  signKey: env('GATEWAYKIT_SIGN_KEY', 'sandbox-sign-key'),
  baseUrl: process.env.GATEWAYKIT_BASE_URL,
  environment: process.env.GATEWAYKIT_BASE_URL ? undefined : env('GATEWAYKIT_ENVIRONMENT', 'test'),
  backendUrl: env('MEDUSA_BACKEND_URL', 'http://localhost:9000'),
  storefrontReturnUrl: env('STOREFRONT_RETURN_URL', 'http://localhost:8000/checkout/return'),
  webSite: env('STOREFRONT_WEBSITE', 'localhost'),
  allowRawCardData: process.env.GATEWAYKIT_ALLOW_RAW_CARD_DATA === 'true',
  // Reconciliation thresholds (defaults 600 s and 1800 s); the tests shorten the second.
  reconcileAfterSeconds: process.env.GATEWAYKIT_RECONCILE_AFTER_SECONDS,
  failUnrecordedAfterSeconds: process.env.GATEWAYKIT_FAIL_UNRECORDED_AFTER_SECONDS,
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
          signKey: env('GATEWAYKIT_SECOND_SIGN_KEY', ''),
        },
      },
    ]
  : [];

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: {
      storeCors: env('STORE_CORS', 'http://localhost:8000'),
      adminCors: env('ADMIN_CORS', 'http://localhost:9000'),
      authCors: env('AUTH_CORS', 'http://localhost:8000,http://localhost:9000'),
      jwtSecret: env('JWT_SECRET', 'supersecret'),
      cookieSecret: env('COOKIE_SECRET', 'supersecret'),
    },
  },
  admin: { disable: process.env.MEDUSA_ADMIN !== 'true' },
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
        ],
      },
    },
  ],
});
