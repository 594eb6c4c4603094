/**
 * startPayment: which operation a payment mode calls and how its answer becomes a PaymentOutcome.
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
import type { ConfirmChargeRequest } from './schemas/charges.js';
import type { CheckoutPaymentRequest } from './schemas/hosted-payments.js';
import { invalidInput } from './validation.js';

/** Code the sandbox (and the legacy gateway) use for "this orderNo was already paid". */
export const DUPLICATE_ORDER_CODE = 'I0061';

export interface PaymentAddress {
  line1: string;
  line2?: string | undefined;
  city: string;
  /** ISO 3166 alpha-2. */
  country: string;
  state?: string | undefined;
  postalCode?: string | undefined;
}

export interface RawCard {
  cardNo: string;
  cardExpireMonth: string;
  cardExpireYear: string;
  cardSecurityCode: string;
}

export type PaymentMode =
  | { kind: 'saved-card'; customerPaymentMethodId: string; customerId?: string | undefined }
  /** PCI-compliant merchants only: card data goes straight to the gateway and is never stored. */
  | { kind: 'card-data'; card: RawCard }
  | { kind: 'hosted' }
  | { kind: 'local'; method: string };

export interface PaymentAttempt {
  mode: PaymentMode;
  orderNo: string;
  /** Gateway orderAmount (from toOrderAmount / minorToOrderAmount). */
  amount: string;
  currency: string;
  customer: {
    email: string;
    firstName: string;
    lastName: string;
    phone?: string | undefined;
    gatewayCustomerId?: string | undefined;
  };
  billingAddress: PaymentAddress;
  shippingAddress?: PaymentAddress | undefined;
  items?: { title: string; quantity: number; unitPrice: string }[] | undefined;
  customerIp: string;
  webSite: string;
  returnUrl: string;
  callbackUrl: string;
  remark?: string | undefined;
  isMobile?: '0' | '1' | '2' | '3' | undefined;
}

/** `{ goodsDetails }` for the request, or nothing when there are no items. */
function goodsField(attempt: PaymentAttempt) {
  // The gateway takes at most 10 lines; the rest are summarised in the last one.
  const items = attempt.items ?? [];
  if (items.length === 0) return {};
  const lines = items.map((item) => ({
    goodsTitle: item.title.slice(0, 100),
    goodsCount: String(item.quantity),
    goodsPrice: item.unitPrice,
  }));
  if (lines.length <= 10) return { goodsDetails: lines };
  const rest = lines.slice(9);
  return {
    goodsDetails: [
      ...lines.slice(0, 9),
      { goodsTitle: `${rest.length} more items`.slice(0, 100), goodsCount: '1', goodsPrice: '0' },
    ],
  };
}

function phoneOf(attempt: PaymentAttempt): string {
  // billingDetail.phone is required with at least 2 characters; storefronts often leave it empty.
  const phone = attempt.customer.phone?.trim();
  return phone && phone.length >= 2 ? phone : '00';
}

/** An address in the charge request's shape (billing detail and shipping). */
function chargeAddress(a: PaymentAddress) {
  return {
    line1: a.line1,
    ...(a.line2 ? { line2: a.line2 } : {}),
    city: a.city,
    country: a.country.toUpperCase(),
    ...(a.state ? { state: a.state } : {}),
    ...(a.postalCode ? { postalCode: a.postalCode } : {}),
  };
}

function chargeRequest(
  attempt: PaymentAttempt,
  mode: Extract<PaymentMode, { kind: 'saved-card' | 'card-data' }>,
): ConfirmChargeRequest {
  const request: ConfirmChargeRequest = {
    orderNo: attempt.orderNo,
    orderAmount: attempt.amount,
    orderCurrency: attempt.currency.toUpperCase(),
    customerIp: attempt.customerIp,
    returnUrl: attempt.returnUrl,
    webSite: attempt.webSite,
    callbackUrl: attempt.callbackUrl,
    ...(attempt.isMobile ? { isMobile: attempt.isMobile } : {}),
    ...(attempt.remark ? { remark: attempt.remark } : {}),
    ...goodsField(attempt),
    ...(attempt.shippingAddress
      ? {
          shipping: {
            firstName: attempt.customer.firstName,
            lastName: attempt.customer.lastName,
            phone: phoneOf(attempt),
            address: chargeAddress(attempt.shippingAddress),
          },
        }
      : {}),
  };
  if (mode.kind === 'saved-card') {
    request.customerPaymentMethodId = mode.customerPaymentMethodId;
    const customerId = mode.customerId ?? attempt.customer.gatewayCustomerId;
    if (customerId) request.customerId = customerId;
  } else {
    request.customerPaymentMethod = {
      billingDetail: {
        firstName: attempt.customer.firstName,
        lastName: attempt.customer.lastName,
        email: attempt.customer.email,
        phone: phoneOf(attempt),
        address: chargeAddress(attempt.billingAddress),
      },
      card: mode.card,
    };
  }
  return request;
}

function hostedRequest(attempt: PaymentAttempt, paymentMethod: string): CheckoutPaymentRequest {
  const billing = attempt.billingAddress;
  const shipping = attempt.shippingAddress;
  return {
    orderNo: attempt.orderNo,
    orderAmount: attempt.amount,
    orderCurrency: attempt.currency.toUpperCase(),
    paymentMethod,
    customerId: attempt.customer.gatewayCustomerId ?? '',
    callbackUrl: attempt.callbackUrl,
    returnUrl: attempt.returnUrl,
    webSite: attempt.webSite,
    customerIp: attempt.customerIp,
    isMobile: attempt.isMobile ?? '0',
    ...(attempt.remark ? { remark: attempt.remark } : {}),
    ...goodsField(attempt),
    billingAddress: {
      address: [billing.line1, billing.line2].filter(Boolean).join(', '),
      city: billing.city,
      country: billing.country.toUpperCase(),
      email: attempt.customer.email,
      firstName: attempt.customer.firstName,
      lastName: attempt.customer.lastName,
      phone: phoneOf(attempt),
      ...(billing.state ? { state: billing.state } : {}),
      ...(billing.postalCode ? { zip: billing.postalCode } : {}),
    },
    ...(shipping
      ? {
          deliveryAddress: {
            shipAddress: [shipping.line1, shipping.line2].filter(Boolean).join(', '),
            shipCity: shipping.city,
            shipCountry: shipping.country.toUpperCase(),
            shipFirstName: attempt.customer.firstName,
            shipLastName: attempt.customer.lastName,
            shipPhone: phoneOf(attempt),
            ...(shipping.state ? { shipState: shipping.state } : {}),
            ...(shipping.postalCode ? { shipZip: shipping.postalCode } : {}),
          },
        }
      : {}),
  };
}

async function callFor(client: GatewayClient, attempt: PaymentAttempt) {
  const { mode } = attempt;
  switch (mode.kind) {
    case 'saved-card':
    case 'card-data':
      return client.charges.confirm(chargeRequest(attempt, mode));
    case 'hosted':
      return client.checkout.createPayment(hostedRequest(attempt, CHECKOUT_CARD_METHOD));
    case 'local': {
      const method = normalizeLocalPaymentMethod(mode.method);
      if (!method) {
        throw invalidInput('local payment', [
          { path: 'paymentMethod', message: `${mode.method} is not a local payment method of the gateway` },
        ]);
      }
      return client.localPayments.create(hostedRequest(attempt, method));
    }
  }
}

/**
 * Starts one payment attempt. Never throws for gateway outcomes: a refusal is `failed`, an answer that may
 * hide a charge is `unknown` (keep the payment pending; the signed callback or return decides).
 * Throws GatewayValidationError for bad input (nothing was sent).
 */
export async function startPayment(client: GatewayClient, attempt: PaymentAttempt): Promise<PaymentOutcome> {
  try {
    const result = await callFor(client, attempt);
    return outcomeFromOrderFields(result, attempt.orderNo);
  } catch (error) {
    if (error instanceof GatewayValidationError) throw error;
    // The reason is stored as platform data. GatewayErrors come redacted; anything else thrown here
    // (a bug, a dispatcher's own error) is redacted now.
    const reason = redactText(error instanceof Error ? error.message : String(error));
    if (error instanceof UnknownOutcomeError) return { status: 'unknown', orderNo: attempt.orderNo, reason };
    if (isGatewayError(error) && error.code === DUPLICATE_ORDER_CODE) {
      // The gateway already holds a paid charge for this orderNo: its callback/return settles it.
      return {
        status: 'unknown',
        orderNo: attempt.orderNo,
        reason: 'the gateway reports this order was already paid',
      };
    }
    if (error instanceof GatewayApiError || error instanceof GatewayConnectionError) {
      return { status: 'failed', orderNo: attempt.orderNo, reason, code: error.code };
    }
    if (isGatewayError(error)) return { status: 'unknown', orderNo: attempt.orderNo, reason };
    throw error;
  }
}
