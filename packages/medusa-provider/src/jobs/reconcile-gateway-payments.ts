import { randomUUID } from 'node:crypto';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { runReconciliation } from '../lib/reconcile-run';

/** Every five minutes; each run handles charges older than the accounts' reconcileAfterSeconds. */
const DEFAULT_INTERVAL_SECONDS = 300;
/** Held (never released) for most of the interval: a second instance firing in it skips its run. */
export const RECONCILE_INTERVAL_LOCK = 'gatewaykit:reconcile:interval';

/**
 * The interval: five minutes, or `GATEWAYKIT_RECONCILE_INTERVAL_SECONDS` (read when the server loads
 * its jobs; a job's schedule cannot come from the provider's options). Shorter intervals are for tests
 * of the topology; a run only looks at charges older than reconcileAfterSeconds either way.
 */
export function reconcileIntervalSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.GATEWAYKIT_RECONCILE_INTERVAL_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_INTERVAL_SECONDS;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 2) {
    throw new Error(`GATEWAYKIT_RECONCILE_INTERVAL_SECONDS: a whole number of seconds ≥ 2, not "${raw}"`);
  }
  return seconds;
}

const INTERVAL_SECONDS = reconcileIntervalSeconds();

/**
 * Settles payments and refunds left without an answer from the gateway's own record. Medusa runs
 * scheduled jobs on instances in worker or shared mode (with the Redis workflow engine: once per
 * schedule across them); the interval lock (Medusa's locking module, shared through Redis or Postgres)
 * lets one run per interval also when several instances schedule it themselves (in-memory workflow
 * engine). With Medusa's default in-memory locking each instance runs it (still safe: recording is
 * idempotent).
 */
export default async function reconcileGatewayPaymentsJob(container: MedusaContainer): Promise<void> {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER);
  try {
    await container.resolve(Modules.LOCKING).acquire(RECONCILE_INTERVAL_LOCK, {
      ownerId: `gatewaykit-reconcile-${randomUUID()}`,
      // Expires before the next run is due (270 s of 300): a crashed run never blocks the next one.
      expire: Math.max(1, Math.floor(INTERVAL_SECONDS * 0.9)),
    });
  } catch {
    logger.debug('gatewaykit: reconciliation already ran in this interval');
    return;
  }
  const report = await runReconciliation(container);
  const changed = report.attempts.filter((line) => line.result === 'changed').length;
  logger.info(
    `gatewaykit: reconciliation ran (interval ${INTERVAL_SECONDS} s, pid ${process.pid}): looked at ${report.attempts.length} payments (${changed} settled) and ${report.refunds.length} open refunds`,
  );
}

export const config = {
  name: 'gatewaykit-reconcile-payments',
  schedule:
    INTERVAL_SECONDS === DEFAULT_INTERVAL_SECONDS
      ? `*/${DEFAULT_INTERVAL_SECONDS / 60} * * * *`
      : { interval: INTERVAL_SECONDS * 1000 },
};
