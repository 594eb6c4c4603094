import type { ChargebackEvent, PaymentOutcome, RefundEvent } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import type { GatewayRefund } from './gateway-records';

/** What an alert about one gateway payment says, by what happened to it. */
const PAYMENT_ALERTS = {
  unapplied: {
    tag: 'PAID BUT NOT APPLIED',
    title: 'Gateway payment not applied',
    text: (reason: string) =>
      `was taken but not applied: ${reason}. Refund or reconcile it in the gateway's merchant portal.`,
  },
  unpaid: {
    tag: 'ORDER NOT PAID',
    title: 'Gateway payment failed after its order was placed',
    text: (reason: string) =>
      `failed after its order was placed (the payment was still pending at checkout): ${reason}. ` +
      'The order is not paid: hold its fulfillment, and cancel it or ask the shopper to pay again.',
  },
  returned: {
    tag: 'PAYMENT RETURNED, NO ORDER',
    title: 'Gateway payment returned before an order existed',
    text: (reason: string) =>
      `${reason}; no order is placed for it. Check in the gateway's merchant portal that the refund reached the shopper, ` +
      'and that it returned all of the payment (a partial portal refund or chargeback leaves the rest to refund there).',
  },
  unsettledPayment: {
    tag: 'PAYMENT NOT SETTLED',
    title: 'Gateway payment not settled',
    text: (reason: string) =>
      `was sent, and the gateway's records did not settle it while the reconciliation asked: ${reason}. ` +
      "Its cart stays held. Look it up in the gateway's merchant portal: a charge there is settled by its callback; " +
      'with none, close it (POST /admin/gatewaykit/attempts/close).',
  },
  unsettledPage: {
    tag: 'PAGE NOT SETTLED',
    title: 'Gateway page of a deleted session not settled',
    text: (reason: string) =>
      `was asked for on a gateway page whose payment session was deleted (the cart changed), and the gateway's records did not settle it: ${reason}. ` +
      "Look it up in the gateway's merchant portal; if it was paid, refund it (no order holds it).",
  },
} as const;

function reportPayment(
  scope: MedusaContainer,
  kind: keyof typeof PAYMENT_ALERTS,
  outcome: PaymentOutcome,
  reason: string,
): Promise<void> {
  const alert = PAYMENT_ALERTS[kind];
  return alertMerchant(
    scope,
    alert.tag,
    alert.title,
    `Gateway payment orderNo ${outcome.orderNo}, tradeNo ${outcome.tradeNo ?? '?'} ` +
      `(${outcome.amount ?? '?'} ${outcome.currency ?? ''}) ${alert.text(reason)}`,
  );
}

/**
 * A payment the gateway took that no cart or order can receive (its session was deleted, or the cart
 * could not take it). Never silent (docs/SECURITY.md): an error log with orderNo and tradeNo, and a
 * notification in the Medusa admin's feed, so the merchant refunds it in the gateway's portal.
 */
export function reportUnappliedCharge(scope: MedusaContainer, outcome: PaymentOutcome, reason: string) {
  return reportPayment(scope, 'unapplied', outcome, reason);
}

/**
 * A payment session the reconciliation stops asking the gateway about, still without a result: its cart
 * stays held until a person settles it (lib/session-attempts.ts `handOver`).
 */
export function reportUnsettledPayment(scope: MedusaContainer, outcome: PaymentOutcome, reason: string) {
  return reportPayment(scope, 'unsettledPayment', outcome, reason);
}

/**
 * A gateway page whose session Medusa deleted, still not settled by the gateway's records when the
 * reconciliation stops asking about it (lib/deleted-pages.ts): it may have been paid.
 */
export function reportUnsettledPage(scope: MedusaContainer, outcome: PaymentOutcome, reason: string) {
  return reportPayment(scope, 'unsettledPage', outcome, reason);
}

/**
 * A payment taken and given back before any order existed: Medusa refunds a captured payment when the
 * cart's completion fails after it. No order is placed for it, ever; the merchant checks the refund.
 */
export function reportReturnedBeforeOrder(scope: MedusaContainer, outcome: PaymentOutcome, reason: string) {
  return reportPayment(scope, 'returned', outcome, reason);
}

/**
 * A payment that was pending when the cart completed (Medusa places the order at once, unpaid) and then
 * failed: the order exists with no money behind it. Never silent: the merchant holds or cancels it.
 */
export function reportFailedAfterOrder(scope: MedusaContainer, outcome: PaymentOutcome, reason: string) {
  return reportPayment(scope, 'unpaid', outcome, reason);
}

/** A signed gateway result about another amount or currency than its session's: ignored, made loud. */
export async function reportAmountMismatch(
  scope: MedusaContainer,
  outcome: PaymentOutcome,
  message: string,
): Promise<void> {
  await alertMerchant(
    scope,
    'AMOUNT MISMATCH',
    'Gateway result ignored',
    `Gateway ${outcome.status} for orderNo ${outcome.orderNo}, tradeNo ${outcome.tradeNo ?? '?'} was ignored: ` +
      `${message}. Check the payment in the gateway's merchant portal.`,
  );
}

/** Which payment a refund or chargeback alert is about. */
export interface PaymentRef {
  orderNo: string;
  tradeNo?: string | undefined;
  /** Medusa's payment id, when a payment took the charge. */
  paymentId?: string | undefined;
}

function describePayment(payment: PaymentRef): string {
  return `tradeNo ${payment.tradeNo ?? '?'} (orderNo ${payment.orderNo}${payment.paymentId ? `, payment ${payment.paymentId}` : ''})`;
}

/** A refund by its ids and amount, on its payment: how every refund alert names it. */
function describeRefund(payment: PaymentRef, refund: GatewayRefund): string {
  return (
    `Refund ${refund.merTrackNo} (batchNo ${refund.batchNo ?? '?'}) of ${refund.amount} ${refund.currency} on ` +
    describePayment(payment)
  );
}

/**
 * A refund the gateway failed after Medusa recorded it: the order shows money returned that was not.
 * Made loud, never a silently refunded order.
 */
export async function reportRefundFailed(
  scope: MedusaContainer,
  payment: PaymentRef,
  refund: GatewayRefund,
): Promise<void> {
  await alertMerchant(
    scope,
    'REFUND FAILED',
    'Gateway refund failed',
    `${describeRefund(payment, refund)} failed at the gateway: ${refund.reason ?? 'no reason given'}. ` +
      `The order shows it refunded; settle it with the customer (refund again or another way).`,
  );
}

/**
 * A refund the gateway reported failed (REFUND FAILED told the merchant to refund again) now reported
 * succeeded: if they did, the customer was refunded twice.
 */
export async function reportRefundSucceededAfterFailure(
  scope: MedusaContainer,
  payment: PaymentRef,
  refund: GatewayRefund,
): Promise<void> {
  await alertMerchant(
    scope,
    'REFUND SUCCEEDED AFTER FAILURE',
    'Gateway refund succeeded after it failed',
    `${describeRefund(payment, refund)} was reported failed, and now succeeded at the gateway. If it was ` +
      'refunded again since, the customer got the money twice: check the merchant portal.',
  );
}

/** A refund whose request's answer was lost and whose result never arrived: a person checks it. */
export async function reportUnsettledRefund(
  scope: MedusaContainer,
  payment: PaymentRef,
  refund: GatewayRefund,
): Promise<void> {
  await alertMerchant(
    scope,
    'REFUND UNCONFIRMED',
    'Gateway refund not confirmed',
    `Refund ${refund.merTrackNo} of ${refund.amount} ${refund.currency} on ${describePayment(payment)} was sent ` +
      `at ${refund.requestedAt}, but the gateway's answer was lost and no refund notification arrived. ` +
      `Look it up by merTrackNo ${refund.merTrackNo} in the gateway's merchant portal; do not refund it again before. ` +
      'Then close it with what the portal shows (POST /admin/gatewaykit/refunds/close).',
  );
}

/** A refund the gateway accepted and never settled while the reconciliation asked: a person checks it. */
export async function reportPendingRefund(
  scope: MedusaContainer,
  payment: PaymentRef,
  refund: GatewayRefund,
): Promise<void> {
  await alertMerchant(
    scope,
    'REFUND NOT SETTLED',
    'Gateway refund not settled',
    `${describeRefund(payment, refund)} was accepted by the gateway at ${refund.requestedAt}, and its records ` +
      "still do not say whether it was made. Look it up in the gateway's merchant portal; do not refund it again before. " +
      'Then close it with what the portal shows (POST /admin/gatewaykit/refunds/close).',
  );
}

/** A verified refund result that no refund recorded in Medusa matches (e.g. made in the merchant portal). */
export async function reportRefundNotInMedusa(
  scope: MedusaContainer,
  payment: PaymentRef,
  event: RefundEvent,
): Promise<void> {
  await alertMerchant(
    scope,
    'REFUND NOT IN MEDUSA',
    'Gateway refund not recorded in Medusa',
    `The gateway reports refund ${event.batchNo ?? '?'} (merTrackNo ${event.merTrackNo ?? '?'}) of ` +
      `${event.amount ?? '?'} ${event.currency ?? ''} on ${describePayment(payment)} as ${event.status}, ` +
      `but Medusa holds no such refund. It is kept as refunded at the gateway (on the payment, or on its session when no Medusa payment took it): ` +
      `a cart still open never becomes an order for it, and no more refunds of this payment go through Medusa (what is left cannot be told there). Do not record it again as a Medusa refund (that sends the money again); check it in the gateway's merchant portal.`,
  );
}

/**
 * An order Medusa canceled whose gateway payment was not (fully) refunded: Medusa's cancel records the
 * order refunded even when the refund was refused (lib/canceled-order-refunds.ts).
 */
export async function reportCanceledNotRefunded(
  scope: MedusaContainer,
  payment: PaymentRef,
  canceled: { order: string; amount: string; known: string },
): Promise<void> {
  await alertMerchant(
    scope,
    'ORDER CANCELED, NOT REFUNDED',
    'Canceled order not refunded at the gateway',
    `${canceled.order} was canceled and Medusa shows its payment refunded, but ${canceled.amount} of ` +
      `${describePayment(payment)} was not refunded through the gateway: the refund was refused (the server log ` +
      `has the reason).${canceled.known} Unless a chargeback or a portal refund already returned that money, ` +
      "refund it in the gateway's merchant portal.",
  );
}

/** A refund result about another amount than the refund asked for: ignored, made loud. */
export async function reportRefundMismatch(
  scope: MedusaContainer,
  payment: PaymentRef,
  message: string,
): Promise<void> {
  await alertMerchant(
    scope,
    'REFUND AMOUNT MISMATCH',
    'Gateway refund result ignored',
    `On ${describePayment(payment)}: ${message}. Nothing was changed; check it in the gateway's merchant portal.`,
  );
}

/** A chargeback raised on a payment: the merchant answers it in the gateway's portal before the deadline. */
export async function reportChargeback(
  scope: MedusaContainer,
  payment: PaymentRef,
  chargeback: ChargebackEvent,
): Promise<void> {
  await alertMerchant(
    scope,
    'CHARGEBACK',
    'Chargeback raised',
    `${chargebackSummary(payment, chargeback)} Reply in the gateway's merchant portal by ${replyDeadline(chargeback)}.`,
  );
}

/** What a chargeback alert opens with: which chargeback, how much, on which payment, and why. */
function chargebackSummary(payment: PaymentRef, chargeback: ChargebackEvent): string {
  return (
    `Chargeback ${chargeback.batchNo ?? '?'} of ${chargeback.amount ?? '?'} ${chargeback.currency ?? ''} on ` +
    `${describePayment(payment)}: ${chargeback.reason ?? 'no reason given'}.`
  );
}

function replyDeadline(chargeback: ChargebackEvent): string {
  return chargeback.replyDeadline ?? 'the deadline the gateway gives';
}

/**
 * A chargeback on a payment made on a page whose session Medusa deleted (lib/deleted-page-chargebacks.ts):
 * PAID BUT NOT APPLIED asks the merchant to refund that payment in the portal, which would now return
 * money the bank has already taken back.
 */
export async function reportChargebackOnUnappliedPayment(
  scope: MedusaContainer,
  payment: PaymentRef,
  chargeback: ChargebackEvent,
): Promise<void> {
  await alertMerchant(
    scope,
    'CHARGEBACK ON UNAPPLIED PAYMENT',
    'Chargeback on a payment never applied',
    `${chargebackSummary(payment, chargeback)} ` +
      'This payment was never applied to an order: its payment session was deleted (the cart changed) while the shopper had its gateway page open. ' +
      "The cardholder's bank has taken this money back: do NOT also refund it in the gateway's merchant portal, " +
      'as the PAID BUT NOT APPLIED alert for this orderNo asks (the money would go back twice; only what the chargeback leaves of the payment is still to refund). ' +
      `Reply to the chargeback in the gateway's merchant portal by ${replyDeadline(chargeback)}` +
      ' (if the payment was refunded there already, say so in the reply).',
  );
}

async function alertMerchant(
  scope: MedusaContainer,
  tag: string,
  title: string,
  text: string,
): Promise<void> {
  const logger = scope.resolve(ContainerRegistrationKeys.LOGGER);
  logger.error(`gatewaykit: ${tag}: ${text}`);
  try {
    await scope.resolve(Modules.NOTIFICATION).createNotifications({
      to: '',
      channel: 'feed',
      template: 'admin-ui',
      data: { title, description: text },
    });
  } catch (error) {
    // The log line above is the record; a store without the admin feed still has it.
    logger.warn(`gatewaykit: admin notification failed: ${String(error)}`);
  }
}
