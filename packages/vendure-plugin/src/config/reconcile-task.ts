import { Logger, ScheduledTask, TransactionalConnection } from '@vendure/core';
import { loggerCtx } from '../constants';
import { ReconcileService } from '../service/reconcile.service';
import { unlessRunning } from '../service/reconcile-run-lock';
import { RECONCILE_DEFAULTS } from '../service/reconcile-settings';
import type { ReconcileOptions } from '../types';

export const RECONCILE_TASK_ID = 'gatewaykit-reconcile';

/**
 * The reconciliation as a Vendure scheduled task. With the DefaultSchedulerPlugin the scheduler's
 * database lock runs it on one instance per interval; `runScheduledTask` (Admin API) triggers it. A run
 * that finds the previous one still going (a slow gateway) is skipped (reconcile-run-lock.ts).
 */
export function reconcileTask(options: ReconcileOptions = {}): ScheduledTask {
  return new ScheduledTask({
    id: RECONCILE_TASK_ID,
    description: 'Settles card gateway payments and refunds whose answer was lost, from the gateway records',
    schedule: options.schedule ?? RECONCILE_DEFAULTS.schedule,
    timeout: '10m',
    preventOverlap: true,
    async execute({ injector }) {
      const report = await unlessRunning(injector.get(TransactionalConnection).rawConnection, () =>
        injector.get(ReconcileService).run(),
      );
      if (!report) {
        Logger.warn('Reconciliation: the previous run is still going; this one is skipped', loggerCtx);
        return { skipped: 'the previous run is still going' };
      }
      // Kept as the task's last result in the database: the counts, not the items.
      return { checked: report.checked, changed: report.changed };
    },
  });
}
