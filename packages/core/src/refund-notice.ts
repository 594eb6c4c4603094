/**
 * What a verified refund result (its notice, or the reconciliation's read of the refund) does to the
 * store's refund it names (docs/callbacks-and-returns.md#refund-and-chargeback-events). Both platforms
 * ask this one rule; they only say what they know of their refunds (KnownRefund). Like a payment's, a
 * refund's state only moves forward: open to succeeded or failed, never back, and a repeat changes
 * nothing.
 */
import { sameOrderAmount } from './money.js';
import type { RefundEvent } from './notification-events.js';

/** What a store knows of one of its gateway refunds, in the gateway's terms. */
export interface KnownRefund {
  /** `open`: still waiting for its result (sent, pending, answer lost); else its settled result. */
  state: 'open' | 'succeeded' | 'failed';
  /** What was asked, as sent, and its currency. */
  amount: string;
  currency: string;
  merTrackNo?: string | undefined;
  /** The gateway's refund number, once an answer or a notice gave it. */
  batchNo?: string | undefined;
  /** The trade the refund is of. */
  tradeNo?: string | null | undefined;
}

export type RefundNoticeVerdict =
  /** The open refund takes the result. */
  | { kind: 'settle'; status: 'succeeded' | 'failed' }
  /** Already settled the same way. */
  | { kind: 'repeat' }
  /** Already settled the other way: the first result stays, and a person is told. */
  | { kind: 'conflict'; settled: 'succeeded' | 'failed' }
  /** About another refund, trade, amount or currency than the one found: nothing changes, a person is told. */
  | { kind: 'contradicts'; message: string };

/**
 * The store's refund a result is about: by the gateway's batchNo, else by the merchant's merTrackNo (a
 * refund whose answer was lost has no batchNo yet). Among several that match, the open one: it is the
 * one waiting for this result, while a copy the store refused as a duplicate of it is already final.
 */
export function findNoticedRefund<R>(
  refunds: readonly R[],
  event: Pick<RefundEvent, 'batchNo' | 'merTrackNo'>,
  known: (refund: R) => KnownRefund,
): R | undefined {
  const { batchNo, merTrackNo } = event;
  const byBatchNo = batchNo ? refunds.filter((refund) => known(refund).batchNo === batchNo) : [];
  const matches = byBatchNo.length
    ? byBatchNo
    : merTrackNo
      ? refunds.filter((refund) => known(refund).merTrackNo === merTrackNo)
      : [];
  return matches.find((refund) => known(refund).state === 'open') ?? matches[0];
}

export function judgeRefundNotice(refund: KnownRefund, event: RefundEvent): RefundNoticeVerdict {
  if (refund.batchNo && event.batchNo && refund.batchNo !== event.batchNo) {
    return contradicts(`it names batchNo ${event.batchNo}, the refund has ${refund.batchNo}`);
  }
  if (refund.merTrackNo && event.merTrackNo && refund.merTrackNo !== event.merTrackNo) {
    return contradicts(`it names merTrackNo ${event.merTrackNo}, the refund has ${refund.merTrackNo}`);
  }
  if (event.tradeNo && refund.tradeNo && event.tradeNo !== refund.tradeNo) {
    return contradicts(`it is about trade ${event.tradeNo}, the refund is of trade ${refund.tradeNo}`);
  }
  // A success must say what it refunded, and it must be this refund's amount (as for a payment); a
  // failure refunded nothing, but an amount it names must still be this refund's.
  if (event.status === 'succeeded' || event.amount !== undefined) {
    const sameCurrency = !event.currency || event.currency.toUpperCase() === refund.currency.toUpperCase();
    const sameAmount =
      event.amount !== undefined && sameOrderAmount(event.amount, refund.amount, refund.currency);
    if (!sameCurrency || !sameAmount) {
      return contradicts(
        `it reports ${event.amount ?? 'no amount'} ${event.currency ?? ''}`.trimEnd() +
          `, the refund is ${refund.amount} ${refund.currency}`,
      );
    }
  }
  if (refund.state === 'open') return { kind: 'settle', status: event.status };
  return refund.state === event.status ? { kind: 'repeat' } : { kind: 'conflict', settled: refund.state };
}

function contradicts(message: string): RefundNoticeVerdict {
  return { kind: 'contradicts', message };
}

/**
 * A succeeded refund no store refund matches was made outside the store (the merchant portal): money
 * returned that the platform does not count. Its key (batchNo, else merTrackNo) joins what the store
 * keeps of such refunds (RefundHistory.uncountedRefunds); undefined when there is nothing to add.
 */
export function withUncountedRefund(
  kept: readonly string[] | undefined,
  event: RefundEvent,
): string[] | undefined {
  const key = event.batchNo ?? event.merTrackNo;
  if (event.status !== 'succeeded' || !key || kept?.includes(key)) return undefined;
  return [...(kept ?? []), key];
}
