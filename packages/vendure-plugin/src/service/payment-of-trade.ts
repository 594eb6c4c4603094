import { type ID, Payment, type RequestContext, type TransactionalConnection } from '@vendure/core';

/**
 * The order's payments made through payment method `method`, oldest first (by creation, then id, which
 * alone would not order UUID ids): the order in which notices and refunds look for a trade's payment,
 * so both find the same one.
 */
export function paymentsOfMethod(
  connection: TransactionalConnection,
  ctx: RequestContext,
  orderId: ID,
  method: string,
  relations: string[] = [],
): Promise<Payment[]> {
  return connection.getRepository(ctx, Payment).find({
    where: { order: { id: orderId }, method },
    relations,
    order: { createdAt: 'ASC', id: 'ASC' },
  });
}

/**
 * The payment Vendure recorded for a gateway trade: its first Settled one when there are several (an
 * administrator can add a manual payment naming any trade), else its first. A trade's refunds and
 * chargebacks are kept on this payment only, so only this payment may refund the trade.
 */
export function paymentOfTrade(payments: Payment[], tradeNo: string | null | undefined): Payment | undefined {
  const ofTrade = payments.filter((p) => p.transactionId === (tradeNo ?? undefined));
  return ofTrade.find((p) => p.state === 'Settled') ?? ofTrade[0];
}
