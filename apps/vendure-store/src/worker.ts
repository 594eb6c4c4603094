import { bootstrapWorker } from '@vendure/core';
import { buildConfig, settingsFromEnv } from './config';

/**
 * The production topology's worker (src/topology/): processes the BullMQ jobs and runs the
 * scheduled tasks (the plugin's `gatewaykit-reconcile`) for the whole cluster. `WORKER_HEALTH_PORT`
 * serves Vendure's worker health check (`GET /health`).
 */
async function main(): Promise<void> {
  process.env.VENDURE_DISABLE_TELEMETRY ??= 'true';
  if (process.env.EXIT_WITH_PARENT === '1') {
    process.stdin.on('close', () => process.exit(0));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
  }
  const settings = settingsFromEnv({ ...process.env, GATEWAYKIT_TOPOLOGY: 'production' });
  const worker = await bootstrapWorker(buildConfig(settings));
  await worker.startJobQueue();
  if (process.env.WORKER_HEALTH_PORT) {
    await worker.startHealthCheckServer({
      port: Number(process.env.WORKER_HEALTH_PORT),
      hostname: '127.0.0.1',
      route: 'health',
    });
  }
  // The topology waits for this line.
  console.log('VENDURE_WORKER_READY');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
