import { settingsFromEnv } from './config';
import { DEMO_MERCHANTS, gatewaysFromEnv } from './gateways';
import { startStore } from './server';

/** `npm run start -w apps/vendure-store`: the demo store, with the local gateway sandbox unless GATEWAY_BASE_URL is set. */
async function main(): Promise<void> {
  // A demo store should not phone home (and would write .vendure/ into the repository root).
  process.env.VENDURE_DISABLE_TELEMETRY ??= 'true';
  if (process.env.EXIT_WITH_PARENT === '1') {
    // Test/bench harnesses keep our stdin open; when they die (even by SIGKILL) it closes and so do we.
    process.stdin.on('close', () => process.exit(0));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
  }
  const settings = settingsFromEnv();
  let gateways = gatewaysFromEnv();
  if (!gateways) {
    const { startSandbox } = await import('@gatewaykit/sandbox');
    const sandbox = await startSandbox({
      port: Number(process.env.SANDBOX_PORT ?? 8600), // the sandbox CLI's port (README: one port everywhere)
      merchants: [DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp],
    });
    console.log(`Gateway sandbox on ${sandbox.url}`);
    gateways = {
      main: { ...DEMO_MERCHANTS.main, baseUrl: sandbox.url },
      jp: { ...DEMO_MERCHANTS.jp, baseUrl: sandbox.url },
    };
  }
  await startStore(settings, gateways, { setup: process.env.STORE_SETUP !== '0' });
  // The test helper waits for this line.
  console.log(`VENDURE_READY ${settings.publicUrl}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
