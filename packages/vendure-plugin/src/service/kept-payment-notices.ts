import { type ID, Payment, type RequestContext, type TransactionalConnection } from '@vendure/core';
import { readUnderOrderLock } from './attempt-lock';

/** What the handler's settlePayment/cancelPayment answer Vendure to merge into the payment's metadata. */
export type KeptNotices = { metadata?: Record<string, unknown> };

/**
 * The payment's metadata as committed now, for the payment handler's settlePayment and cancelPayment.
 * Vendure saves the payment it read before the handler ran, metadata included, merged with what the
 * handler answers: what a notice kept between that read and the save would be erased, such as a
 * chargeback (chargebacks.ts, listed again by a later reconciliation run) or a refund made outside Vendure
 * (uncounted-refund.ts, never listed again: a refund through Vendure would then send money already
 * returned). Read under the order's row lock (attempt-lock.ts), which those writers take too, in the
 * admin's transaction (readUnderOrderLock): what they kept before is answered here, what they keep
 * later waits for this save.
 */
export async function keptNoticesNow(
  connection: TransactionalConnection,
  ctx: RequestContext,
  orderId: ID,
  paymentId: ID,
): Promise<KeptNotices> {
  const payment = await readUnderOrderLock(connection, ctx, orderId, Payment, paymentId, ['id', 'metadata']);
  const metadata = payment?.metadata as Record<string, unknown> | undefined;
  return metadata ? { metadata } : {};
}
