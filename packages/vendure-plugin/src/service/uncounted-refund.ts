import { type RefundEvent, withUncountedRefund } from '@gatewaykit/core';
import { Payment, type RequestContext, type TransactionalConnection } from '@vendure/core';
import { portalRefundsOf } from './refund-notice';

/**
 * Keeps a refund the gateway made that Vendure does not count (made in the merchant portal, or sent from
 * here with its record lost) on the payment it refunded, by batchNo (else merTrackNo): from then on every
 * further refund of the payment is refused here (core's refundBlockedBy), since what is left cannot be told.
 */
export async function keepUncountedRefund(
  connection: TransactionalConnection,
  ctx: RequestContext,
  payment: Payment,
  event: RefundEvent,
): Promise<void> {
  const metadata = payment.metadata ?? {};
  const portalRefunds = withUncountedRefund(portalRefundsOf(metadata), event);
  if (!portalRefunds) return;
  await connection
    .getRepository(ctx, Payment)
    .update({ id: payment.id }, { metadata: { ...metadata, portalRefunds } });
}
