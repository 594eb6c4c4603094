import type { defaultRefundProcess } from '@vendure/core';

/** True for a Refund the plugin's createRefund answered (its metadata carries the marker). */
export function isGatewaykitRefund(refund: { metadata?: unknown } | undefined): boolean {
  const mark = (refund?.metadata as { gatewaykit?: unknown } | null | undefined)?.gatewaykit;
  return mark === 'gateway' || mark === 'manual';
}

/**
 * Vendure 3.7 moves a new Refund from `Pending` to the state createRefund returns, and `Pending` to
 * `Pending` is not a transition of its default process. A gateway refund stays `Pending` until its
 * notice arrives, so this allows that one step for the plugin's refunds only and cancels it (the refund
 * keeps `Pending`, no history entry); any other refund is refused as before.
 */
export const gatewaykitRefundProcess: typeof defaultRefundProcess = {
  transitions: {
    Pending: { to: ['Pending'] },
    Settled: { to: [] },
    Failed: { to: [] },
  },
  onTransitionStart: (fromState, toState, data) => {
    if (fromState !== 'Pending' || toState !== 'Pending') return true;
    if (isGatewaykitRefund(data.refund)) return false;
    return `Cannot transition Refund from "${fromState}" to "${toState}"`;
  },
};
