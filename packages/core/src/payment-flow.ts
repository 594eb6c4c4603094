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
function goodsField(payment: PaymentRequest) {
  // The gateway takes at most 10 lines; the rest are summarised in the last one.
  const items = payment.items ?? [];
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

function phoneOf(payment: PaymentRequest): string {
  // billingDetail.phone is required with at least 2 characters; storefronts often leave it empty.
  const phone = payment.customer.phone?.trim();
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
  payment: PaymentRequest,
  source: Extract<PaymentSource, { kind: 'saved-card' | 'card-data' }>,
): ConfirmChargeRequest {
  const request: ConfirmChargeRequest = {
    orderNo: payment.orderNo,
    orderAmount: payment.amount,
    orderCurrency: payment.currency.toUpperCase(),
    customerIp: payment.customerIp,
    returnUrl: payment.returnUrl,
    webSite: payment.webSite,
    callbackUrl: payment.callbackUrl,
    ...(payment.isMobile ? { isMobile: payment.isMobile } : {}),
    ...(payment.remark ? { remark: payment.remark } : {}),
    ...goodsField(payment),
    ...(payment.shippingAddress
      ? {
          shipping: {
            firstName: payment.customer.firstName,
            lastName: payment.customer.lastName,
            phone: phoneOf(payment),
            address: chargeAddress(payment.shippingAddress),
          },
        }
      : {}),
  };
  if (source.kind === 'saved-card') {
    request.customerPaymentMethodId = source.customerPaymentMethodId;
    const customerId = source.customerId ?? payment.customer.gatewayCustomerId;
    if (customerId) request.customerId = customerId;
  } else {
    request.customerPaymentMethod = {
      billingDetail: {
        firstName: payment.customer.firstName,
        lastName: payment.customer.lastName,
        email: payment.customer.email,
        phone: phoneOf(payment),
        address: chargeAddress(payment.billingAddress),
      },
      card: source.card,
    };
  }
  return request;
}

function hostedRequest(payment: PaymentRequest, paymentMethod: string): CheckoutPaymentRequest {
  const billing = payment.billingAddress;
  const shipping = payment.shippingAddress;
  return {
    orderNo: payment.orderNo,
    orderAmount: payment.amount,
    orderCurrency: payment.currency.toUpperCase(),
    paymentMethod,
    customerId: payment.customer.gatewayCustomerId ?? '',
    callbackUrl: payment.callbackUrl,
    returnUrl: payment.returnUrl,
    webSite: payment.webSite,
    customerIp: payment.customerIp,
    isMobile: payment.isMobile ?? '0',
    ...(payment.remark ? { remark: payment.remark } : {}),
    ...goodsField(payment),
    billingAddress: {
      address: [billing.line1, billing.line2].filter(Boolean).join(', '),
      city: billing.city,
      country: billing.country.toUpperCase(),
      email: payment.customer.email,
      firstName: payment.customer.firstName,
      lastName: payment.customer.lastName,
      phone: phoneOf(payment),
      ...(billing.state ? { state: billing.state } : {}),
      ...(billing.postalCode ? { zip: billing.postalCode } : {}),
    },
    ...(shipping
      ? {
          deliveryAddress: {
            shipAddress: [shipping.line1, shipping.line2].filter(Boolean).join(', '),
            shipCity: shipping.city,
            shipCountry: shipping.country.toUpperCase(),
            shipFirstName: payment.customer.firstName,
            shipLastName: payment.customer.lastName,
            shipPhone: phoneOf(payment),
            ...(shipping.state ? { shipState: shipping.state } : {}),
            ...(shipping.postalCode ? { shipZip: shipping.postalCode } : {}),
          },
        }
      : {}),
  };
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
        reason: 'the gateway reports this order was already paid',
      };
    }
    if (error instanceof GatewayApiError || error instanceof GatewayConnectionError) {
      return { status: 'failed', orderNo: payment.orderNo, reason, code: error.code };
    }
    if (isGatewayError(error)) return { status: 'unknown', orderNo: payment.orderNo, reason };
    throw error;
  }
}
