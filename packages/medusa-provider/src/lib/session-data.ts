import type {
  CheckoutFlow,
  KeptCard,
  PaymentCustomer,
  PaymentOutcome,
  PaymentRequest,
} from '@gatewaykit/core';
import type { GatewayChargeback, GatewayRefund } from './gateway-records';

/**
 * Shopper details the plugin's middleware copies from the cart into the session data: core's payment
 * request fields (the gateway customer id is not the shopper's to give), plus the shopper's IP.
 */
export type BuyerDetails = Omit<PaymentCustomer, 'gatewayCustomerId'> &
  Pick<PaymentRequest, 'billingAddress' | 'shippingAddress' | 'items'> & {
    ip?: string | undefined;
  };

/**
 * The session's `data`. Medusa returns it in every cart response, so it holds only what the shopper may
 * see: never card numbers, security codes or the sign key (docs/safety-rules.md#card-data). The gateway's outcome is stored
 * here: authorizePayment reads this blob; the gateway's own record is read only to reconcile.
 */
export interface GatewaykitSessionData {
  orderNo: string;
  /** Which flow the session uses; fixed by the provider service that created it. */
  mode: CheckoutFlow;
  /** Gateway orderAmount and currency of this session (authorizePayment gets no amount from Medusa). */
  amount: string;
  currency: string;
  localMethod?: string | undefined;
  /** The gateway payment method the storefront chose: made by the card element, or a saved card. */
  customerPaymentMethodId?: string | undefined;
  /** The shopper asked to keep the element's card as a saved card (logged-in customers only). */
  saveCard?: boolean | undefined;
  /**
   * The logged-in shopper's gateway customer (their account holder) when the session was created;
   * absent for a guest. Never the storefront's to give: the card rule (core's resolveCardMethod) reads
   * it to decide whose card may be charged.
   */
  gatewayCustomerId?: string | undefined;
  /**
   * The logged-in Medusa customer who created the session (absent for a guest): only they may complete
   * the cart with it (lib/session-chooser.ts). Set by the server from Medusa's context, never the
   * storefront's to give; the cart's own responses show its customer already.
   */
  medusaCustomerId?: string | undefined;
  /** Whether a card the shopper asked to save was attached after the payment (`attached`, `failed`, …). */
  cardKept?: KeptCard | undefined;
  buyer?: BuyerDetails | undefined;
  /** Set once the money-moving request was sent: authorizePayment never sends a second one. */
  attemptedAt?: string | undefined;
  /** Latest gateway outcome, merged monotonically (a success is never replaced). */
  outcome?: PaymentOutcome | undefined;
  /** Where the shopper must go next (hosted page, local payment page, 3DS challenge). */
  redirectUrl?: string | undefined;
  /** The gateway's message when the payment failed, for the storefront. */
  error?: string | undefined;
  /** Refunds made through the gateway (payment data only; written by refundPayment and notices). */
  refunds?: GatewayRefund[] | undefined;
  /**
   * Refunds the gateway notified that Medusa never asked for (made in the merchant portal), by batchNo
   * (payment data only): money given back all the same, so the payment never becomes an order.
   */
  refundedAtGateway?: string[] | undefined;
  /** Chargebacks the gateway notified (payment data; session data when no payment took the charge). */
  chargebacks?: GatewayChargeback[] | undefined;
  /** When a payment canceled without a refund was reported as money held (payment data only). */
  heldAlertedAt?: string | undefined;
  /**
   * When the reconciliation reported a stored success it could not make an order of (session data,
   * lib/unapplied-success.ts): later runs leave it to a person.
   */
  unappliedReportedAt?: string | undefined;
  /**
   * A failure recorded over a charge that had no final answer (sent, unknown, pending) may belong to an
   * order Medusa placed before charging (docs/payment-states.md#a-charge-cut-off-after-medusa-placed-its-order): `due` is written with
   * the failure, in the same update, and becomes `reported` (ORDER NOT PAID raised) or `not-needed`
   * once its cart is looked at under the cart's lock, by the callback's path or by the reconciliation.
   */
  unpaidOrderCheck?: UnpaidOrderCheck | undefined;
  /**
   * When the reconciliation stopped asking the gateway about this session without a result and handed
   * it to a person (PAYMENT NOT SETTLED, said once; lib/session-attempts.ts `handOver`).
   */
  handedOverAt?: string | undefined;
}

export type UnpaidOrderCheck = 'due' | 'reported' | 'not-needed';

const OWNED_KEYS: readonly (keyof GatewaykitSessionData)[] = [
  'orderNo',
  'mode',
  'amount',
  'currency',
  'localMethod',
  'customerPaymentMethodId',
  'saveCard',
  'gatewayCustomerId',
  'medusaCustomerId',
  'cardKept',
  'buyer',
  'attemptedAt',
  'outcome',
  'redirectUrl',
  'error',
  'refunds',
  'chargebacks',
  'heldAlertedAt',
  'unappliedReportedAt',
  'unpaidOrderCheck',
  'handedOverAt',
];

/**
 * The complete session data, every key the provider owns written out (undefined where unset). Medusa
 * saves `{ ...stored data, ...returned data }`, so a key left out would keep whatever was stored before,
 * including anything a storefront managed to put there; undefined removes it.
 */
export function completeSessionData(
  data: Partial<GatewaykitSessionData>,
  stored: Record<string, unknown> = {},
): Record<string, unknown> {
  const complete: Record<string, unknown> = {};
  for (const key of Object.keys(stored)) complete[key] = undefined;
  for (const key of OWNED_KEYS) complete[key] = data[key];
  return complete;
}

export function readSessionData(data: Record<string, unknown> | undefined): Partial<GatewaykitSessionData> {
  return (data ?? {}) as Partial<GatewaykitSessionData>;
}

/** Session data after an outcome: keeps the public summary fields in step with the outcome. */
export function withOutcome(
  data: Partial<GatewaykitSessionData>,
  outcome: PaymentOutcome,
): Partial<GatewaykitSessionData> {
  return {
    ...data,
    outcome,
    redirectUrl: outcome.status === 'redirect' ? outcome.redirectUrl : data.redirectUrl,
    error: outcome.status === 'failed' ? outcome.reason : undefined,
  };
}
