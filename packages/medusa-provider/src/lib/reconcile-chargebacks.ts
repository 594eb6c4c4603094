import {
  chargebackLookbackMs,
  gatewayClientFor,
  listRecentChargebacks,
  redactedErrorText,
} from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import type { GatewaykitAccount } from './resolve-options';
import { SessionAttempts } from './session-attempts';

export interface ChargebackLine {
  account: string;
  orderNo: string;
  batchNo: string;
  /** `recorded` (new: stored and alerted now), or `error` (the list or the recording failed). */
  result: 'recorded' | 'error';
  reason: string;
}

/**
 * The run's pass over chargebacks (docs/gateway-protocol.md#chargebacks-in-each-run): the gateway's list for the
 * look-back (core's listRecentChargebacks), each recorded through the same path as its notice
 * (SessionAttempts.recordChargeback), so a chargeback whose every notice was lost is still stored on its
 * payment (or on the page kept for its deleted session) and raised once. Those already stored, and
 * those of no session or kept page of this account (another store on the same gateway account, a
 * payment made before the plugin), are left without a line.
 */
export async function reconcileChargebacks(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  options: { now?: Date; orderNos?: readonly string[] | undefined },
): Promise<ChargebackLine[]> {
  const listing = await listRecentChargebacks(gatewayClientFor(account.options), {
    now: options.now ?? new Date(),
    // 0: the pass is off, nothing is asked.
    lookbackMs: chargebackLookbackMs(account.options.chargebackLookbackDays),
  });
  const lines: ChargebackLine[] = [];
  if (listing.error) {
    lines.push({ account: account.id, orderNo: '', batchNo: '', result: 'error', reason: listing.error });
  }
  const store = new SessionAttempts(scope, account);
  for (const event of listing.events) {
    const { orderNo } = event;
    if (!orderNo || (options.orderNos && !options.orderNos.includes(orderNo))) continue;
    const line = { account: account.id, orderNo, batchNo: event.batchNo ?? '' };
    try {
      const recorded = await store.recordChargeback(orderNo, event);
      const listed = `the gateway lists chargeback ${event.batchNo ?? '?'}, which no notice had brought`;
      if (recorded === 'added') lines.push({ ...line, result: 'recorded', reason: listed });
      if (recorded === 'added-on-deleted-page') {
        lines.push({
          ...line,
          result: 'recorded',
          reason: `${listed}; kept on the page of a payment session a cart change deleted (the payment was never applied), reported as CHARGEBACK ON UNAPPLIED PAYMENT`,
        });
      }
    } catch (error) {
      lines.push({ ...line, result: 'error', reason: redactedErrorText(error) });
    }
  }
  return lines;
}
