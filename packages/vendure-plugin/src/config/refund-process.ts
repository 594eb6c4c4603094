import { type defaultRefundProcess, Refund, TransactionalConnection } from '@vendure/core';
import { readUnderOrderLock } from '../service/attempt-lock';

/** True for a Refund the plugin's createRefund answered (its metadata carries the marker). */
export function isGatewaykitRefund(refund: { metadata?: unknown } | undefined): boolean {
  const mark = (refund?.metadata as { gatewaykit?: unknown } | null | undefined)?.gatewaykit;
  return mark === 'gateway' || mark === 'manual';
}

/** Said to whoever settles a refund that its notice (or another admin) settled meanwhile. */
export const REFUND_SETTLED_MEANWHILE =
  'The refund was settled meanwhile (by its gateway notice): read it again';

/** Set at bootstrap (a process is configuration, not a Nest provider). */
let connection: TransactionalConnection | undefined;

/**
 * Vendure 3.7 moves a new Refund from `Pending` to the state createRefund returns, and `Pending` to
 * `Pending` is not a transition of its default process. A gateway refund stays `Pending` until its
 * notice arrives, so this allows that one step for the plugin's refunds only and cancels it (the refund
 * keeps `Pending`, no history entry); any other refund is refused as before.
 *
 * Settling one of the plugin's refunds (its notice, the reconciliation, an admin's `settleRefund`) is
 * judged on the refund as committed, under the order's row lock: Vendure transitions and saves the
 * Refund it read unlocked, so an admin's settleRefund that read it `Pending` before its notice failed it
 * would have saved it `Settled` over the failure (money the shopper never got back, shown as refunded).
 */
export const gatewaykitRefundProcess: typeof defaultRefundProcess = {
  transitions: {
    Pending: { to: ['Pending'] },
    Settled: { to: [] },
    Failed: { to: [] },
  },
  init: (injector) => {
    connection = injector.get(TransactionalConnection);
  },
  onTransitionStart: async (fromState, toState, data) => {
    if (fromState === 'Pending' && toState === 'Pending') {
      if (isGatewaykitRefund(data.refund)) return false;
      return `Cannot transition Refund from "${fromState}" to "${toState}"`;
    }
    if (fromState !== 'Pending' || !isGatewaykitRefund(data.refund) || !connection) return true;
    // A refund not saved yet has nothing committed to compare (Vendure 3.7 saves a new one before its
    // first transition: its committed row is then the handler's own, Pending, with no portalBatchNo).
    if (data.refund.id === undefined) return true;
    // Under the order's row lock, which a refund notice's writer holds too (attempt-lock.ts).
    const committed = await readUnderOrderLock(connection, data.ctx, data.order.id, Refund, data.refund.id, [
      'id',
      'state',
      'metadata',
    ]);
    if (committed && committed.state !== 'Pending') return REFUND_SETTLED_MEANWHILE;
    keepPortalBinding(data.refund, committed);
    return true;
  },
};

/**
 * A portal refund notice binds a refund recorded by hand by writing `portalBatchNo` into its metadata
 * (gateway-notice.service.ts, under the same order row lock). Vendure saves the refund it transitions
 * with the whole metadata it read, so a settleRefund that read it before that write would erase the
 * binding, and the notice's repeat would bind another refund or keep the portal refund as one Vendure
 * does not count. The committed key is carried onto the refund being saved; nothing else of its
 * metadata (on createRefund it is the handler's own).
 */
function keepPortalBinding(refund: Refund, committed: Refund | null): void {
  const bound = (committed?.metadata as { portalBatchNo?: unknown } | null | undefined)?.portalBatchNo;
  const read = (refund.metadata as { portalBatchNo?: unknown } | null | undefined)?.portalBatchNo;
  if (bound === undefined || read !== undefined) return;
  refund.metadata = { ...(refund.metadata ?? {}), portalBatchNo: bound };
}
