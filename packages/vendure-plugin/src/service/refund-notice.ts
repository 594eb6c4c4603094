import { type RefundEvent, sameOrderAmount } from '@gatewaykit/core';
import type { RefundMetadata } from './refund-request';

/**
 * What a verified refund notice (or the reconciliation's read of the refund) does to the Vendure refund
 * it names (docs/callbacks-and-returns.md#refund-and-chargeback-events). Like a payment's state, a
 * refund's only moves forward: Pending to Settled or Failed, never back, and a repeat changes nothing.
 */

/** The parts of Vendure's Refund the decision reads. */
export interface NoticedRefund {
  id: string | number;
  state: string;
  transactionId?: string | null;
  metadata?: Partial<RefundMetadata> | Record<string, unknown> | null;
}

export type RefundNoticeDecision =
  | { kind: 'settle' }
  | { kind: 'fail' }
  /** Already in the state the notice says. */
  | { kind: 'duplicate' }
  /** Something only a person can settle (the notice contradicts Vendure): nothing changes. */
  | { kind: 'alert'; message: string };

function metadataOf(refund: NoticedRefund): Partial<RefundMetadata> {
  return (refund.metadata ?? {}) as Partial<RefundMetadata>;
}

/**
 * The plugin's gateway refund the notice is about: by the gateway's batchNo (the refund's
 * transactionId), else by the merchant's merTrackNo (a refund whose answer was lost has no batchNo yet).
 * Among several that match, the Pending one: it is the one waiting for this answer, while a refund the
 * plugin refused as a duplicate of it (or one recorded twice before that check existed) is already
 * final, and settling only that one would leave the other Pending for ever.
 */
export function findNoticedRefund<R extends NoticedRefund>(
  refunds: readonly R[],
  event: Pick<RefundEvent, 'batchNo' | 'merTrackNo'>,
): R | undefined {
  const ours = refunds.filter((refund) => metadataOf(refund).gatewaykit === 'gateway');
  const { batchNo, merTrackNo } = event;
  const byBatchNo = batchNo
    ? ours.filter((r) => r.transactionId === batchNo || metadataOf(r).batchNo === batchNo)
    : [];
  const matches = byBatchNo.length
    ? byBatchNo
    : merTrackNo
      ? ours.filter((r) => metadataOf(r).merTrackNo === merTrackNo)
      : [];
  return matches.find((r) => r.state === 'Pending') ?? matches[0];
}

export interface NoticeContext {
  /** The gateway amount of the Vendure refund, and the order's currency. */
  refundAmount: string;
  currency: string;
  /** The tradeNo of the refunded payment. */
  tradeNo?: string | null | undefined;
}

export function decideRefundNotice(
  refund: NoticedRefund,
  event: RefundEvent,
  context: NoticeContext,
): RefundNoticeDecision {
  const meta = metadataOf(refund);
  if (meta.batchNo && event.batchNo && meta.batchNo !== event.batchNo) {
    return alert(`it names batchNo ${event.batchNo}, the refund has ${meta.batchNo}`);
  }
  if (event.tradeNo && context.tradeNo && event.tradeNo !== context.tradeNo) {
    return alert(`it is about trade ${event.tradeNo}, the refund is of trade ${context.tradeNo}`);
  }
  // A success must say what it refunded, and it must be this refund's amount (as for a payment).
  if (event.status === 'succeeded' || event.amount !== undefined) {
    const sameCurrency = !event.currency || event.currency.toUpperCase() === context.currency.toUpperCase();
    const sameAmount =
      event.amount !== undefined && sameOrderAmount(event.amount, context.refundAmount, context.currency);
    if (!sameCurrency || !sameAmount) {
      return alert(
        `it reports ${event.amount ?? 'no amount'} ${event.currency ?? ''}`.trimEnd() +
          `, the refund is ${context.refundAmount} ${context.currency}`,
      );
    }
  }
  const target = event.status === 'succeeded' ? 'Settled' : 'Failed';
  if (refund.state === target) return { kind: 'duplicate' };
  if (refund.state === 'Pending') return event.status === 'succeeded' ? { kind: 'settle' } : { kind: 'fail' };
  return alert(`the refund is already ${refund.state}`);
}

function alert(why: string): RefundNoticeDecision {
  return { kind: 'alert', message: why };
}
