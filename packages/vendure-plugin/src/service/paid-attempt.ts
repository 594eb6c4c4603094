import type { ID, RequestContext, TransactionalConnection } from '@vendure/core';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';

/**
 * The gateway charge a Vendure payment may refund: the succeeded attempt of that order and payment
 * method whose trade is the payment's transactionId. The order decides, not the admin's channel: an
 * order is in its own channel and the default one, and a method may be in both, so an administrator of
 * either refunds it; another order's trade (in any channel) is never this order's. A Payment row alone proves nothing: an
 * administrator with UpdateOrder can add a "manual" payment under the gateway's method with any
 * transactionId (addManualPaymentToOrder never calls the handler), and a refund of it would send
 * another order's or channel's money back to that order's payer. The attempt is written only by the
 * plugin, from answers it verified, so it is what a refund is checked against; its amount and currency
 * are what was charged, whatever the order says now.
 */
export async function paidAttemptOf(
  connection: TransactionalConnection,
  ctx: RequestContext,
  orderId: ID,
  payment: { transactionId?: string | null; method: string },
): Promise<GatewaykitPaymentAttempt | undefined> {
  const tradeNo = payment.transactionId?.trim();
  if (!tradeNo) return undefined;
  const attempt = await connection.getRepository(ctx, GatewaykitPaymentAttempt).findOne({
    where: {
      tradeNo,
      status: 'succeeded',
      orderId: String(orderId),
      paymentMethodCode: payment.method,
    },
  });
  return attempt ?? undefined;
}
