/**
 * `npm run demo`: builds what is missing (turbo, cached), then starts the gateway sandbox, the Medusa
 * store (embedded Postgres), the Vendure store (sql.js) and the storefront, and prints where they are.
 * Data stays in DEMO_DATA_DIR (default .data/demo), so the next run reuses it. Ctrl-C stops everything.
 *
 * Ports: DEMO_STOREFRONT_PORT (8000), DEMO_MEDUSA_PORT (9000), DEMO_POSTGRES_PORT (54329),
 * DEMO_VENDURE_PORT (3100), DEMO_SANDBOX_PORT (8600). DEMO_MEDUSA_ADMIN=0 skips Medusa's admin dashboard.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { TEST_CARDS } from '@gatewaykit/sandbox';
import { type Stack, type StackPorts, startStack } from '../apps/storefront/server/stack';

const ROOT = resolve(__dirname, '..');

/** Demo settings come from the shell, never from turbo (the demo is not a turbo task). */
const setting = (name: string): string | undefined => process.env[name];

function port(name: string, fallback: number): number {
  const raw = setting(name);
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    console.error(`✖ ${name}=${raw} is not a port number (1–65535)`);
    process.exit(2);
  }
  return value;
}

const PORTS: Record<keyof StackPorts, { env: string; value: number; what: string }> = {
  storefront: { env: 'DEMO_STOREFRONT_PORT', value: port('DEMO_STOREFRONT_PORT', 8000), what: 'storefront' },
  medusa: { env: 'DEMO_MEDUSA_PORT', value: port('DEMO_MEDUSA_PORT', 9000), what: 'Medusa store' },
  postgres: {
    env: 'DEMO_POSTGRES_PORT',
    value: port('DEMO_POSTGRES_PORT', 54329),
    what: 'embedded Postgres',
  },
  vendure: { env: 'DEMO_VENDURE_PORT', value: port('DEMO_VENDURE_PORT', 3100), what: 'Vendure store' },
  sandbox: { env: 'DEMO_SANDBOX_PORT', value: port('DEMO_SANDBOX_PORT', 8600), what: 'gateway sandbox' },
};

/** Tries to listen on the port: the only reliable answer to "is it free?". */
function isFree(value: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(value, '127.0.0.1', () => server.close(() => done(true)));
  });
}

const elapsed = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

async function step(name: string, work: () => Promise<unknown>): Promise<void> {
  const started = Date.now();
  console.log(`▸ ${name} …`);
  await work();
  console.log(`✔ ${name} (${elapsed(started)})`);
}

function summary(stack: Stack, dataDir: string, medusaAdmin: boolean): string {
  const storefront = stack.storefront.url;
  const cards = TEST_CARDS.map((card) => `    ${card.cardNo}  ${card.outcome}`).join('\n');
  return `
gatewaykit demo is running. Ctrl-C stops everything.

  Storefront          ${storefront}/?store=medusa   (switch to ${storefront}/?store=vendure)
  Medusa store        ${stack.medusa.url}   Store API key ${stack.medusa.publishableKey}
    admin             ${medusaAdmin ? `${stack.medusa.url}/app (dashboard), ` : ''}API ${stack.medusa.url}/admin   login admin@gatewaykit.test / supersecret
  Vendure store       ${stack.vendure.shopApi}
    admin API         ${stack.vendure.adminApi}   login superadmin / superadmin
  Gateway sandbox     dashboard ${stack.sandbox.url}/   (merchant 12345678 for Medusa, 12345001 for Vendure)

  Test cards (any future expiry, any 3-digit security code):
${cards}
  Local methods: Medusa offers klarna, ideal and Alipay; Vendure offers Alipay.
  Saved cards: register on the storefront, then "My saved cards".

  Data and logs: ${dataDir} (delete it to start from scratch)
`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const busy: string[] = [];
  for (const { env, value, what } of Object.values(PORTS)) {
    if (!(await isFree(value)))
      busy.push(`  port ${value} (${what}) is in use: stop what uses it, or set ${env}=<other port>`);
  }
  if (busy.length > 0) {
    console.error(`✖ cannot start the demo:\n${busy.join('\n')}`);
    process.exit(1);
  }

  await step('build (turbo, cached after the first run)', async () => {
    const result = spawnSync(
      'npx',
      ['turbo', 'run', 'build', '--filter=@gatewaykit/storefront...', '--output-logs=errors-only'],
      { cwd: ROOT, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } },
    );
    if (result.status !== 0) throw new Error('the build failed (see above)');
  });

  const dataDir = resolve(setting('DEMO_DATA_DIR') || join(ROOT, '.data', 'demo'));
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const ports = Object.fromEntries(
    Object.entries(PORTS).map(([key, { value }]) => [key, value]),
  ) as StackPorts;
  const medusaAdmin = setting('DEMO_MEDUSA_ADMIN') !== '0';
  const stack = await startStack({ dataDir, ports, step, medusaAdmin });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the storefront, the stores, Postgres and the sandbox …`);
    stack.close().then(
      // Exit once the line is written: stdout to a pipe is asynchronous.
      () => process.stdout.write('stopped.\n', () => process.exit(0)),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  console.log(summary(stack, dataDir, medusaAdmin));
  console.log(`(ready in ${elapsed(started)})`);
}

main().catch((error: unknown) => {
  console.error(`✖ the demo did not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
