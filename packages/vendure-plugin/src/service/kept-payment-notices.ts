import { type ID, Payment, type RequestContext, type TransactionalConnection } from '@vendure/core';
import { lockOrderRow } from './attempt-lock';

/** What the handler's settlePayment/cancelPayment answer Vendure to merge into the payment's metadata. */
export type KeptNotices = { metadata?: { chargebacks: unknown } };

/**
 * What gateway notices keep on a payment's metadata (its chargebacks, chargebacks.ts) as committed now,
 * for the payment handler's settlePayment and cancelPayment. Vendure saves the payment it read before
 * the handler ran, metadata included, merged with what the handler answers: a chargeback kept between
 * that read and the save would be erased (until a reconciliation run listed it again). Read under the
 * order's row lock (attempt-lock.ts), which a chargeback's writer takes too, in the admin's transaction:
 * one kept before is answered here, one kept later waits for this save and adds to it.
 */
export async function keptNoticesNow(
  connection: TransactionalConnection,
  ctx: RequestContext,
  orderId: ID,
  paymentId: ID,
): Promise<KeptNotices> {
  await lockOrderRow(connection, ctx, orderId as string | number);
  const payment = await connection
    .getRepository(ctx, Payment)
    .findOne({ where: { id: paymentId }, select: ['id', 'metadata'] });
  const chargebacks = (payment?.metadata as { chargebacks?: unknown } | undefined)?.chargebacks;
  return chargebacks === undefined ? {} : { metadata: { chargebacks } };
}
