/**
 * startPayment: which operation a payment source calls and how its answer becomes a PaymentOutcome.
 * The one place both platform adapters start a payment, so they cannot drift apart.
 */
import type { GatewayClient } from './client.js';
import {
  GatewayApiError,
  GatewayConnectionError,
  GatewayValidationError,
  isGatewayError,
  UnknownOutcomeError,
} from './errors.js';
import { CHECKOUT_CARD_METHOD, normalizeLocalPaymentMethod } from './local-methods.js';
import { outcomeFromOrderFields, type PaymentOutcome } from './outcome.js';
import { redactText } from './redact.js';
import { chargeRequest, hostedRequest } from './request-builders.js';
import { invalidInput } from './validation.js';

/** Code the sandbox (and the legacy gateway) use for "this orderNo was already paid". */
export const DUPLICATE_ORDER_CODE = 'I0061';

/** The reason of the unknown outcome an "already paid" (I0061) answer gives; stores keep it as text. */
export const ALREADY_PAID_REASON = 'the gateway reports this order was already paid';

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
 * Starts one payment payment. Never throws for gateway outcomes: a refusal is `failed`, an answer that may
 * hide a charge is `unknown` (keep the payment pending; the signed callback or return decides).
 * Throws GatewayValidationError for bad input (nothing was sent).
 */
export async function startPayment(client: GatewayClient, payment: PaymentRequest): Promise<PaymentOutcome> {
  try {
    const result = await callFor(client, payment);
    return outcomeFromOrderFields(result, payment.orderNo);
  } catch (error) {
    if (error instanceof GatewayValidationError) throw error;
    // The reason is stored as platform data. GatewayErrors come redacted; anything else thrown here
    // (a bug, a dispatcher's own error) is redacted now.
    const reason = redactText(error instanceof Error ? error.message : String(error));
    if (error instanceof UnknownOutcomeError) return { status: 'unknown', orderNo: payment.orderNo, reason };
    if (isGatewayError(error) && error.code === DUPLICATE_ORDER_CODE) {
      // The gateway already holds a paid charge for this orderNo: its callback/return settles it.
      return {
        status: 'unknown',
        orderNo: payment.orderNo,
        reason: ALREADY_PAID_REASON,
        code: DUPLICATE_ORDER_CODE,
      };
    }
    if (error instanceof GatewayApiError || error instanceof GatewayConnectionError) {
      return { status: 'failed', orderNo: payment.orderNo, reason, code: error.code };
    }
    if (isGatewayError(error)) return { status: 'unknown', orderNo: payment.orderNo, reason };
    throw error;
  }
}
