import { ScheduledTask } from '@vendure/core';
import { ReconcileService } from '../service/reconcile.service';
import { RECONCILE_DEFAULTS } from '../service/reconcile-settings';
import type { ReconcileOptions } from '../types';

export const RECONCILE_TASK_ID = 'gatewaykit-reconcile';

/**
 * The reconciliation as a Vendure scheduled task. With the DefaultSchedulerPlugin the scheduler's
 * database lock runs it on one instance per interval; `runScheduledTask` (Admin API) triggers it.
 */
export function reconcileTask(options: ReconcileOptions = {}): ScheduledTask {
  return new ScheduledTask({
    id: RECONCILE_TASK_ID,
    description: 'Settles card gateway payments and refunds whose answer was lost, from the gateway records',
    schedule: options.schedule ?? RECONCILE_DEFAULTS.schedule,
    timeout: '10m',
    preventOverlap: true,
    async execute({ injector }) {
      const { checked, changed } = await injector.get(ReconcileService).run();
      // Kept as the task's last result in the database: the counts, not the items.
      return { checked, changed };
    },
  });
}
