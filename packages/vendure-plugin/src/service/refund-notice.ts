import type { KnownRefund } from '@gatewaykit/core';
import type { RefundMetadata } from './refund-request';

/**
 * A Vendure refund in the terms of core's refund-result rule (findNoticedRefund, judgeRefundNotice):
 * the plugin's gateway refunds only (manual ones are never matched), Pending as open.
 */

/** The parts of Vendure's Refund the rule reads. */
export interface NoticedRefund {
  id: string | number;
  state: string;
  transactionId?: string | null;
  metadata?: Partial<RefundMetadata> | Record<string, unknown> | null;
}

export function refundMetadataOf(refund: NoticedRefund): Partial<RefundMetadata> {
  return (refund.metadata ?? {}) as Partial<RefundMetadata>;
}

/** Refunds the gateway noticed that no Vendure refund asked for (made in the merchant portal), by batchNo. */
export function portalRefundsOf(paymentMetadata: Record<string, unknown> | null | undefined): string[] {
  const kept = paymentMetadata?.portalRefunds;
  return Array.isArray(kept) ? kept.filter((batchNo): batchNo is string => typeof batchNo === 'string') : [];
}

export function isGatewayRefund(refund: NoticedRefund): boolean {
  return refundMetadataOf(refund).gatewaykit === 'gateway';
}

/** What was asked, in the gateway's terms, and the trade it refunds. */
export interface RefundAskedFor {
  amount: string;
  currency: string;
  tradeNo?: string | null | undefined;
}

export function knownRefundOf(refund: NoticedRefund, asked?: RefundAskedFor): KnownRefund {
  const meta = refundMetadataOf(refund);
  return {
    state: refund.state === 'Settled' ? 'succeeded' : refund.state === 'Failed' ? 'failed' : 'open',
    // What the refund asked for is what the plugin stored when sending it; `asked` fills what a refund
    // recorded before that was stored lacks.
    amount: meta.refundAmount ?? asked?.amount ?? '',
    currency: meta.currency ?? asked?.currency ?? '',
    merTrackNo: meta.merTrackNo,
    batchNo: meta.batchNo || refund.transactionId || undefined,
    tradeNo: asked?.tradeNo,
  };
}
