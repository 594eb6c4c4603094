/**
 * startPayment: which operation a payment source calls and how its answer becomes a PaymentOutcome.
 * The one place both platform adapters start a payment, so they cannot drift apart.
 */
import type { GatewayClient } from './client.js';
import { DUPLICATE_ORDER_CODE, isRefusedBeforeProcessing } from './codes.js';
import {
  GatewayApiError,
  GatewayConnectionError,
  GatewayValidationError,
  isGatewayError,
  UNKNOWN_OUTCOME_CODE,
  UnknownOutcomeError,
} from './errors.js';
import { amountMismatch } from './inbound/decision.js';
import { CHECKOUT_CARD_METHOD, normalizeLocalPaymentMethod } from './local-methods.js';
import { alreadyPaid, outcomeFromOrderFields, type PaymentOutcome } from './outcome.js';
import { redactText } from './redact.js';
import { chargeRequest, hostedRequest } from './request-builders.js';
import { invalidInput } from './validation.js';

// Defined in codes.ts (outcome.ts reads them too); still exported from here for existing importers.
export { ALREADY_PAID_REASON, DUPLICATE_ORDER_CODE } from './codes.js';

export interface PaymentAddress {
  line1: string;
  line2?: string | undefined;
  city: string;
  /** ISO 3166 alpha-2. */
  country: string;
  state?: string | undefined;
  postalCode?: string | undefined;
}

/** The buyer of a payment; the gateway customer id when they pay with a card saved there. */
export interface PaymentCustomer {
  email: string;
  firstName: string;
  lastName: string;
  phone?: string | undefined;
  gatewayCustomerId?: string | undefined;
}

/** One order line; unitPrice is a gateway amount like orderAmount. */
export interface PaymentItem {
  title: string;
  quantity: number;
  unitPrice: string;
}

export interface RawCard {
  cardNo: string;
  cardExpireMonth: string;
  cardExpireYear: string;
  cardSecurityCode: string;
}

export type PaymentSource =
  | { kind: 'saved-card'; customerPaymentMethodId: string; customerId?: string | undefined }
  /** PCI-compliant merchants only: card data goes straight to the gateway and is never stored. */
  | { kind: 'card-data'; card: RawCard }
  | { kind: 'hosted' }
  | { kind: 'local'; method: string };

export interface PaymentRequest {
  source: PaymentSource;
  orderNo: string;
  /** Gateway orderAmount (from toOrderAmount / minorToOrderAmount). */
  amount: string;
  currency: string;
  customer: PaymentCustomer;
  billingAddress: PaymentAddress;
  shippingAddress?: PaymentAddress | undefined;
  items?: PaymentItem[] | undefined;
  customerIp: string;
  webSite: string;
  returnUrl: string;
  callbackUrl: string;
  remark?: string | undefined;
  isMobile?: '0' | '1' | '2' | '3' | undefined;
}

async function callFor(client: GatewayClient, payment: PaymentRequest) {
  const { source } = payment;
  switch (source.kind) {
    case 'saved-card':
    case 'card-data':
      return client.charges.confirm(chargeRequest(payment, source));
    case 'hosted':
      return client.checkout.createPayment(hostedRequest(payment, CHECKOUT_CARD_METHOD));
    case 'local': {
      const method = normalizeLocalPaymentMethod(source.method);
      if (!method) {
        throw invalidInput('local payment', [
          { path: 'paymentMethod', message: `${source.method} is not a local payment method of the gateway` },
        ]);
      }
      return client.localPayments.create(hostedRequest(payment, method));
    }
  }
}

/**
 * An answer about another orderNo, or a success or open payment about another amount or currency than
 * was sent, cannot settle this payment, nor free it: `unknown`, so the signed callback, the return or
 * the reconciliation decides, and their amount check reports a mismatch (docs/payment-states.md#amount-check).
 */
function answerForThisPayment(outcome: PaymentOutcome, payment: PaymentRequest): PaymentOutcome {
  const { orderNo } = payment;
  if (outcome.orderNo !== orderNo) {
    return {
      status: 'unknown',
      orderNo,
      reason: `the gateway's answer named orderNo ${outcome.orderNo}, not ${orderNo}`,
    };
  }
  if (outcome.status === 'failed' || outcome.status === 'unknown') return outcome;
  const mismatch = amountMismatch(outcome, {
    orderNo,
    orderAmount: payment.amount,
    currency: payment.currency,
    outcome: undefined,
  });
  return mismatch ? { status: 'unknown', orderNo, reason: `the gateway's answer: ${mismatch}` } : outcome;
}

/**
 * Starts one payment. Never throws for gateway outcomes: a documented refusal before processing (or a
 * gateway never reached) is `failed`; an answer that may hide a charge (lost, unreadable, "already
 * paid", a code that is not a documented refusal) is `unknown` (keep the payment pending; the signed
 * callback, return or the reconciliation decides). Throws GatewayValidationError for bad input
 * (nothing was sent).
 */
export async function startPayment(client: GatewayClient, payment: PaymentRequest): Promise<PaymentOutcome> {
  try {
    const result = await callFor(client, payment);
    return answerForThisPayment(outcomeFromOrderFields(result, payment.orderNo), payment);
  } catch (error) {
    if (error instanceof GatewayValidationError) throw error;
    // The reason is stored as platform data. GatewayErrors come redacted; anything else thrown here
    // (a bug, a dispatcher's own error) is redacted now.
    const reason = redactText(error instanceof Error ? error.message : String(error));
    const { orderNo } = payment;
    // The gateway already holds a paid charge for this orderNo: its callback/return settles it. The
    // same outcome as a `fail` whose orderInfo starts with I0061 (outcomeFromOrderFields).
    if (isGatewayError(error) && error.code === DUPLICATE_ORDER_CODE) return alreadyPaid({ orderNo });
    if (error instanceof UnknownOutcomeError) {
      // With the gateway's code when it answered one (a code that is not a documented refusal).
      const code = error.code === UNKNOWN_OUTCOME_CODE ? undefined : error.code;
      return code === undefined
        ? { status: 'unknown', orderNo, reason }
        : { status: 'unknown', orderNo, reason, code };
    }
    if (error instanceof GatewayConnectionError)
      return { status: 'failed', orderNo, reason, code: error.code };
    // Only a code the gateway documents as refused before processing frees the order; the client
    // already turns any other code of a card charge into UnknownOutcomeError. A hosted or local payment
    // refused with a code made no page to pay on: refused too.
    const makesPage = payment.source.kind === 'hosted' || payment.source.kind === 'local';
    if (error instanceof GatewayApiError && (isRefusedBeforeProcessing(error.code) || makesPage)) {
      return { status: 'failed', orderNo, reason, code: error.code };
    }
    if (error instanceof GatewayApiError) return { status: 'unknown', orderNo, reason, code: error.code };
    if (isGatewayError(error)) return { status: 'unknown', orderNo, reason };
    throw error;
  }
}
