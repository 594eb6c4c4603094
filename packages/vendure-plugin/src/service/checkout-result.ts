import {
  type InboundDecision,
  isFinalOutcome,
  type PaymentOutcome,
  type StoredAttempt,
} from '@gatewaykit/core';
import type { ID } from '@vendure/core';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { isUnappliedCharge, UNAPPLIED_ANSWER } from './unapplied-charge';

/** The `GatewaykitPaymentResult` union of the Shop API; `__typename` picks the GraphQL type. */
export type ShopStartPaymentResult =
  | { __typename: 'GatewaykitPaymentRedirect'; url: string; orderNo: string }
  // The order itself is loaded only if the query asks for it, with the relations it selects
  // (GatewaykitPaymentCompletedResolver).
  | { __typename: 'GatewaykitPaymentCompleted'; orderId: ID }
  | { __typename: 'GatewaykitPaymentPending'; orderNo: string; message: string }
  | { __typename: 'GatewaykitPaymentError'; errorCode: ShopErrorCode; message: string };

export type PaymentErrorResult = Extract<ShopStartPaymentResult, { __typename: 'GatewaykitPaymentError' }>;
export type PaymentPendingResult = Extract<
  ShopStartPaymentResult,
  { __typename: 'GatewaykitPaymentPending' }
>;

/** Every errorCode the storefront can see (listed in the README); the schema types it as a String. */
export type ShopErrorCode =
  | 'INVALID_INPUT'
  | 'NO_ACTIVE_ORDER'
  /** The active order is another channel's (order-channel.ts). */
  | 'ORDER_OF_ANOTHER_CHANNEL'
  | 'METHOD_NOT_AVAILABLE'
  | 'ORDER_STATE_ERROR'
  | 'INELIGIBLE_PAYMENT_METHOD'
  | 'NOTHING_TO_PAY'
  | 'UNSUPPORTED_AMOUNT'
  | 'NOT_LOGGED_IN'
  | 'CARD_NOT_FOUND'
  | 'CARD_NOT_YOURS'
  | 'SAVE_NEEDS_LOGIN'
  | 'GATEWAY_UNAVAILABLE'
  | 'RAW_CARD_NOT_ALLOWED'
  | 'CARD_REQUIRED'
  | 'PAYMENT_DECLINED'
  /** The gateway took the money but Vendure could not add it to the order (unapplied-charge.ts). */
  | 'PAID_NOT_APPLIED';

export function paymentError(errorCode: ShopErrorCode, message: string): PaymentErrorResult {
  return { __typename: 'GatewaykitPaymentError', errorCode, message };
}

export function paymentPending(orderNo: string, message: string): PaymentPendingResult {
  return { __typename: 'GatewaykitPaymentPending', orderNo, message };
}

/** For the `'errorCode' in x` narrowing of the steps that either go on or refuse. */
export function isPaymentError(value: object): value is PaymentErrorResult {
  return 'errorCode' in value;
}

/**
 * What the shopper is answered for the gateway's outcome of attempt `orderNo` of order `orderId`. A
 * success names the order: by then the recorder has added its Settled payment (the checkout answers
 * one it could not add before coming here).
 */
export function resultForOutcome(
  outcome: PaymentOutcome,
  orderNo: string,
  orderId: ID,
): ShopStartPaymentResult {
  switch (outcome.status) {
    case 'redirect':
      return { __typename: 'GatewaykitPaymentRedirect', url: outcome.redirectUrl, orderNo };
    case 'succeeded':
      return { __typename: 'GatewaykitPaymentCompleted', orderId };
    case 'failed':
      return paymentError('PAYMENT_DECLINED', outcome.reason);
    case 'pending':
      return paymentPending(orderNo, outcome.orderInfo ?? 'The payment is pending at the gateway');
    case 'unknown':
      // No answer is not a decline: the attempt keeps the order blocked until the gateway confirms.
      return paymentPending(
        orderNo,
        'The gateway has not confirmed the payment yet; it will be confirmed shortly',
      );
  }
}

/** Said to the shopper when the gateway's answer was about another amount or currency (not recorded). */
export const MISMATCH_ANSWER =
  "The gateway's answer did not match the order; the shop has been alerted and nothing more will be charged";

/**
 * What the shopper is answered for a charge's answer once it was recorded (payment-recorder.service.ts):
 * from what was recorded, not from the answer alone. A success Vendure could not add to the order, or
 * one about another amount (not recorded at all), is no completed payment; a final outcome a callback
 * recorded first is what the order has, whatever the answer said.
 */
export function answerFromRecording(
  decision: InboundDecision<StoredAttempt & { row: Pick<GatewaykitPaymentAttempt, 'status' | 'openSlot'> }>,
  outcome: PaymentOutcome,
  orderNo: string,
  orderId: ID,
): ShopStartPaymentResult {
  if ('attempt' in decision && isUnappliedCharge(decision.attempt.row)) {
    return paymentError('PAID_NOT_APPLIED', UNAPPLIED_ANSWER);
  }
  if (decision.kind === 'mismatch') {
    return outcome.status === 'succeeded'
      ? paymentError('PAID_NOT_APPLIED', UNAPPLIED_ANSWER)
      : paymentPending(orderNo, MISMATCH_ANSWER);
  }
  const recorded =
    (decision.kind === 'duplicate' || decision.kind === 'stale') && isFinalOutcome(decision.current)
      ? decision.current
      : outcome;
  return resultForOutcome(recorded, orderNo, orderId);
}
