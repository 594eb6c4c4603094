/**
 * Reconciliation of refunds (docs/gateway-protocol.md#reconciliation): a refund whose notification was
 * lost is queried by batchNo, and the event its notification would have given is produced, for the
 * adapter to settle the same way. Nothing is sent that moves money.
 */

import type { GatewayClient } from './client.js';
import type { RefundEvent } from './notification-events.js';
import { redactedErrorText, redactText } from './redact.js';
import type { RefundRecord } from './schemas/refunds.js';

export interface RefundReconciliation {
  batchNo: string;
  /** The settled refund, as its notification would have said it; undefined while pending or unread. */
  event: RefundEvent | undefined;
  /** The gateway's record as read, when the query answered. */
  record?: RefundRecord | undefined;
  reason: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** The refund event of the gateway's record of a settled refund; undefined while it is pending. */
export function refundEventFromRecord(record: RefundRecord): RefundEvent | undefined {
  if (record.refundStatus === 'pending') return undefined;
  const reason = nonEmpty(record.refundReason);
  return {
    kind: 'refund',
    status: record.refundStatus === 'success' ? 'succeeded' : 'failed',
    batchNo: record.batchNo,
    merTrackNo: nonEmpty(record.merTrackNo),
    tradeNo: nonEmpty(record.tradeNo),
    orderNo: nonEmpty(record.orderNo),
    amount: nonEmpty(record.refundAmount),
    currency: nonEmpty(record.refundCurrency),
    reason: reason === undefined ? undefined : redactText(reason),
    noticeDate: nonEmpty(record.refundDate),
  };
}

/**
 * Reads one refund (`retrieveRefund`) and gives the event its `refund.*` notification would have given:
 * the adapter settles it the same way. Pending, an unrecognised status or a failed query: no event, and
 * the reason says which.
 */
export async function reconcileRefund(
  client: Pick<GatewayClient, 'refunds'>,
  batchNo: string,
  options: { signal?: AbortSignal } = {},
): Promise<RefundReconciliation> {
  let record: RefundRecord;
  try {
    record = await client.refunds.retrieve(batchNo, options.signal ? { signal: options.signal } : undefined);
  } catch (error) {
    return {
      batchNo,
      event: undefined,
      reason: `the gateway's record of refund ${batchNo} could not be read (${redactedErrorText(error)}); try again later`,
    };
  }
  if (record.refundStatusText !== undefined) {
    return {
      batchNo,
      event: undefined,
      record,
      reason: redactText(
        `refund ${batchNo} has the unrecognised status ${record.refundStatusText}; still open`,
      ),
    };
  }
  const event = refundEventFromRecord(record);
  return {
    batchNo,
    event,
    record,
    reason: event
      ? `the gateway recorded refund ${batchNo} as ${record.refundStatus}`
      : `refund ${batchNo} is still pending at the gateway`,
  };
}
