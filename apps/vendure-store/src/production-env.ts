/**
 * What a production start (NODE_ENV=production) of this store must set. Each has a demo default in
 * this app, and the defaults are public (they are in the repository): a store running on them has a
 * known superadmin password, a known cookie secret, a known gateway sign key, or answers any website.
 */
export const PRODUCTION_VARIABLES = [
  'SUPERADMIN_PASSWORD',
  'COOKIE_SECRET',
  'CORS_ORIGINS',
  'GATEWAY_BASE_URL',
  'GATEWAY_SIGN_KEY',
  'GATEWAY_JP_SIGN_KEY',
] as const;

/**
 * Switches for benchmarks and tests that no shop may run with: the no-op baseline method settles any
 * order without money, the failing order process holds orders shipped to one city, and the failing
 * refund process rolls back every refund given one reason after the gateway was asked
 * (failing-refund-process.ts).
 */
export const TEST_ONLY_VARIABLES = [
  'GATEWAYKIT_BENCH',
  'GATEWAYKIT_TEST_FAIL_AFTER_SETTLE_CITY',
  'GATEWAYKIT_TEST_FAIL_AFTER_REFUND_REASON',
] as const;

/**
 * Refuses a production start that still relies on a demo default, naming every variable to set, or
 * that has a test-only switch on.
 */
export function refuseDemoDefaultsInProduction(env: NodeJS.ProcessEnv): void {
  if (env.NODE_ENV !== 'production') return;
  const testSwitches = TEST_ONLY_VARIABLES.filter((name) => env[name]?.trim());
  if (testSwitches.length > 0) {
    throw new Error(
      `NODE_ENV=production: unset ${testSwitches.join(', ')}; they are for benchmarks and tests only (a payment method that takes no money, an order or refund process that fails)`,
    );
  }
  const missing = PRODUCTION_VARIABLES.filter((name) => !env[name]?.trim());
  if (missing.length === 0) return;
  throw new Error(
    `NODE_ENV=production: set ${missing.join(', ')}; the demo defaults are public (apps/vendure-store/README.md, "Run it in production")`,
  );
}
