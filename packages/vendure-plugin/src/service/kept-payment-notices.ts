import { type ID, Payment, type RequestContext, type TransactionalConnection } from '@vendure/core';
import { lockOrderRow } from './attempt-lock';

/** What the handler's settlePayment/cancelPayment answer Vendure to merge into the payment's metadata. */
export type KeptNotices = { metadata?: Record<string, unknown> };

/**
 * The payment's metadata as committed now, for the payment handler's settlePayment and cancelPayment.
 * Vendure saves the payment it read before the handler ran, metadata included, merged with what the
 * handler answers: what a notice kept between that read and the save would be erased, such as a
 * chargeback (chargebacks.ts, listed again by a later reconciliation run) or a refund made outside Vendure
 * (uncounted-refund.ts, never listed again: a refund through Vendure would then send money already
 * returned). Read under the order's row lock (attempt-lock.ts), which those writers take too, in the
 * admin's transaction: what they kept before is answered here, what they keep later waits for this save.
 * MySQL's REPEATABLE READ needs a locking read to see what committed since Vendure's own read.
 */
export async function keptNoticesNow(
  connection: TransactionalConnection,
  ctx: RequestContext,
  orderId: ID,
  paymentId: ID,
): Promise<KeptNotices> {
  await lockOrderRow(connection, ctx, orderId as string | number);
  const query = connection
    .getRepository(ctx, Payment)
    .createQueryBuilder('payment')
    .select(['payment.id', 'payment.metadata'])
    .where('payment.id = :id', { id: paymentId });
  const type = connection.rawConnection.options.type;
  if (type === 'mysql' || type === 'mariadb') query.setLock('pessimistic_read');
  const metadata = (await query.getOne())?.metadata as Record<string, unknown> | undefined;
  return metadata ? { metadata } : {};
}
