import { randomUUID } from 'node:crypto';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { runReconciliation } from '../lib/reconcile-run';

/** Every five minutes; each run handles charges older than the accounts' reconcileAfterSeconds. */
const INTERVAL_SECONDS = 300;
/** Held (never released) for most of the interval: a second instance firing in it skips its run. */
export const RECONCILE_INTERVAL_LOCK = 'gatewaykit:reconcile:interval';

/**
 * Settles payments and refunds left without an answer from the gateway's own record. Every instance
 * schedules it; the interval lock lets one run per interval. Across instances this needs a shared
 * locking provider (Redis, Postgres), as Medusa's own cart locks do.
 */
export default async function reconcileGatewayPaymentsJob(container: MedusaContainer): Promise<void> {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER);
  try {
    await container.resolve(Modules.LOCKING).acquire(RECONCILE_INTERVAL_LOCK, {
      ownerId: `gatewaykit-reconcile-${randomUUID()}`,
      expire: INTERVAL_SECONDS - 30,
    });
  } catch {
    logger.debug('gatewaykit: reconciliation already ran in this interval');
    return;
  }
  const report = await runReconciliation(container);
  const changed = report.attempts.filter((line) => line.result === 'changed').length;
  logger.info(
    `gatewaykit: reconciliation looked at ${report.attempts.length} payments (${changed} settled) and ${report.refunds.length} open refunds`,
  );
}

export const config = {
  name: 'gatewaykit-reconcile-payments',
  schedule: `*/${INTERVAL_SECONDS / 60} * * * *`,
};
