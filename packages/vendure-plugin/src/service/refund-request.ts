import { type CreateRefundRequest, refundRequest } from '@gatewaykit/core';
import type { RefundMode } from '../config/method-args';
import { vendureAmountToOrderAmount } from './vendure-money';

/**
 * The gateway refund request for one Vendure refund, built from plain data so it is decided (and
 * refused) before anything is sent (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks).
 */

/**
 * What the plugin keeps on a Vendure Refund (`Refund.metadata`). Admin text: the Shop API shows none
 * of it (api/shop-refund-metadata.resolver.ts).
 */
export interface RefundMetadata {
  /** Marks the plugin's refunds and how they are made. */
  gatewaykit: RefundMode;
  /** The merchant's refund id sent to the gateway; its notice names it. */
  merTrackNo?: string;
  /** The gateway's refund number (also the Refund's transactionId once known). */
  batchNo?: string;
  tradeNo?: string;
  /** Gateway amount and currency of the refund. */
  refundAmount?: string;
  currency?: string;
  refundType?: '1' | '2';
  /**
   * `sent`: the gateway took it, its notification decides; `unknown`: the answer was lost;
   * `refused`: the gateway (or the plugin) refused it, nothing was refunded; then the notice's result.
   */
  status?: 'sent' | 'unknown' | 'refused' | 'succeeded' | 'failed';
  /** Why it was refused or failed, or what the admin should know. */
  message?: string;
  noticeDate?: string;
}

/** Thrown for a refund that cannot be sent; the message is shown to the admin. */
export class RefundRequestError extends Error {
  override name = 'RefundRequestError';
}

/** A refund already made against the payment, whatever its state. */
export interface EarlierRefund {
  id?: string | number;
  state: string;
  /** Vendure minor units. */
  total: number;
  transactionId?: string | null;
  metadata?: Partial<RefundMetadata> | Record<string, unknown> | null;
}

/** The payment a refund request is for, as the charge that took the money has it. */
export interface RefundedPayment {
  id: string | number;
  /** Vendure minor units that were charged (the succeeded attempt's amount). */
  amount: number;
  /** The gateway's tradeNo of the charge. */
  transactionId?: string | null;
  /**
   * The payment's refunds as read inside its refund section (refund-lock.ts), not the list Vendure
   * read before the section: two refunds at once must not both count the same ones.
   */
  refunds?: readonly EarlierRefund[] | undefined;
}

export interface RefundInput {
  orderCode: string;
  /** The currency the payment was charged in (the attempt's), whatever the order's is now. */
  currency: string;
  /** The MoneyStrategy's precision. */
  precision: number;
  payment: RefundedPayment;
  /** Vendure minor units to refund from this payment. */
  amount: number;
  reason?: string | null | undefined;
  /**
   * Merchant refund ids of this payment sent without a Refund to hold them (their record was lost,
   * refund-intents.ts): they are numbers used, so a new refund never reuses one.
   */
  lostRecords?: number;
}

/**
 * The merchant's refund id: the refund's number on its payment. Vendure calls createRefund before it
 * saves the Refund (so its id does not exist yet). A refund whose Vendure transaction rolled back after
 * it was sent is left as a refund intent (refund-intents.ts), which blocks the payment's refunds until
 * its notice comes and keeps its number used; on the embedded demo database, where the intent rolls
 * back too, the retry gets the same number, and the gateway answers the refund it already made.
 */
export function refundTrackNo(orderCode: string, paymentId: string | number, refundNumber: number): string {
  return `${orderCode}-P${paymentId}-R${refundNumber}`;
}

export function buildRefundRequest(input: RefundInput): CreateRefundRequest {
  const { payment, amount } = input;
  const tradeNo = payment.transactionId?.trim();
  if (!tradeNo) {
    throw new RefundRequestError('the payment has no gateway trade number (transactionId): nothing was sent');
  }
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > payment.amount) {
    throw new RefundRequestError(`cannot refund ${amount} of a payment of ${payment.amount}`);
  }
  // Vendure checked this against the refunds it read before the refund section; a refund made in
  // between (another admin at the same moment) is only seen here. A failed refund gave its amount back.
  const refunded = (payment.refunds ?? [])
    .filter((refund) => refund.state !== 'Failed')
    .reduce((sum, refund) => sum + refund.total, 0);
  if (amount > payment.amount - refunded) {
    throw new RefundRequestError(
      `cannot refund ${amount}: only ${Math.max(payment.amount - refunded, 0)} of the payment of ${payment.amount} is left to refund`,
    );
  }
  let refundAmount: string;
  try {
    refundAmount = vendureAmountToOrderAmount(amount, input.currency, input.precision);
  } catch (error) {
    throw new RefundRequestError(
      `the refund amount cannot be sent in ${input.currency}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const number = (payment.refunds?.length ?? 0) + (input.lostRecords ?? 0) + 1;
  return refundRequest({
    merTrackNo: refundTrackNo(input.orderCode, payment.id, number),
    tradeNo,
    amount: refundAmount,
    paidAmount: vendureAmountToOrderAmount(payment.amount, input.currency, input.precision),
    currency: input.currency,
    reason: input.reason?.trim() || `Refund of order ${input.orderCode}`,
    remark: `Vendure order ${input.orderCode}, refund ${number} of payment ${payment.id}`,
  });
}

/**
 * The earlier refund of the payment that already holds the gateway refund `batchNo`. The gateway
 * answers a merchant refund id it has seen with the refund it already made; should a refund get an id
 * that is not new, its answer is another Vendure refund's, and recording it twice would count one
 * gateway refund as two (one of them Pending for ever).
 */
export function refundHoldingBatchNo<R extends EarlierRefund>(
  refunds: readonly R[],
  batchNo: string,
): R | undefined {
  if (!batchNo) return undefined;
  return refunds.find(
    (refund) =>
      refund.transactionId === batchNo ||
      (refund.metadata as Partial<RefundMetadata> | null)?.batchNo === batchNo,
  );
}
