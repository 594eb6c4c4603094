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
    // A new refund (not saved yet) has nothing committed to compare.
    if (data.refund.id === undefined) return true;
    // Under the order's row lock, which a refund notice's writer holds too (attempt-lock.ts).
    const committed = await readUnderOrderLock(connection, data.ctx, data.order.id, Refund, data.refund.id, [
      'id',
      'state',
    ]);
    return !committed || committed.state === 'Pending' ? true : REFUND_SETTLED_MEANWHILE;
  },
};
