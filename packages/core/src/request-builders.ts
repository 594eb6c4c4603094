/**
 * Every gateway request body built from platform data: customer records, billing details, charges,
 * hosted/local payments and refunds. The gateway's field rules (required phone, name and length limits, upper-case
 * country codes) are applied here once, so no adapter writes them again (docs/gateway-protocol.md).
 */
import { sameOrderAmount } from './money.js';
import type { PaymentAddress, PaymentItem, PaymentRequest, PaymentSource } from './payment-flow.js';
import type { ConfirmChargeRequest } from './schemas/charges.js';
import type { CreateCustomerRequest } from './schemas/customers.js';
import type { CheckoutPaymentRequest } from './schemas/hosted-payments.js';
import type { CreatePaymentMethodRequest } from './schemas/payment-methods.js';
import type { CreateRefundRequest } from './schemas/refunds.js';

/** A buyer as a platform knows them; any field may be missing. */
export interface PaymentPerson {
  email?: string | null | undefined;
  firstName?: string | null | undefined;
  lastName?: string | null | undefined;
  phone?: string | null | undefined;
}

export type BillingDetail = CreatePaymentMethodRequest['billingDetail'];
type ChargeAddress = BillingDetail['address'];

/** Maximum lengths of the request fields (the charge request's, the strictest given). */
const MAX = {
  firstName: 100,
  lastName: 50,
  email: 200,
  phone: 50,
  description: 500,
  line: 500,
  city: 100,
  state: 50,
  postalCode: 30,
  goodsTitle: 100,
} as const;

/** The gateway takes at most this many goods lines. */
const MAX_GOODS_LINES = 10;

/** Trimmed and cut to `max`, or undefined when blank. */
function fit(value: string | null | undefined, max: number): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, max) : undefined;
}

/** billingDetail.phone is required with at least 2 characters; storefronts often leave it empty. */
export function gatewayPhone(phone: string | null | undefined): string {
  const trimmed = phone?.trim();
  return trimmed && trimmed.length >= 2 ? trimmed.slice(0, MAX.phone) : '00';
}

// The gateway requires both names on billing and shipping; guest checkouts may leave them empty.
function gatewayName(value: string | null | undefined, max: number): string {
  return fit(value, max) ?? 'Customer';
}

/** An address in the charge request's shape (billing detail and shipping); empty optional fields left out. */
export function gatewayAddress(address: PaymentAddress): ChargeAddress {
  const line2 = fit(address.line2, MAX.line);
  const state = fit(address.state, MAX.state);
  const postalCode = fit(address.postalCode, MAX.postalCode);
  return {
    line1: fit(address.line1, MAX.line) ?? '',
    ...(line2 ? { line2 } : {}),
    city: fit(address.city, MAX.city) ?? '',
    country: address.country.trim().toUpperCase(),
    ...(state ? { state } : {}),
    ...(postalCode ? { postalCode } : {}),
  };
}

/**
 * The billing detail of a card (saving one, or charging card data). The email is never cut: a shortened
 * address is someone else's, so an overlong one is refused by the request's validation instead.
 */
export function billingDetail(person: PaymentPerson, address: PaymentAddress): BillingDetail {
  return {
    firstName: gatewayName(person.firstName, MAX.firstName),
    lastName: gatewayName(person.lastName, MAX.lastName),
    email: person.email?.trim() ?? '',
    phone: gatewayPhone(person.phone),
    address: gatewayAddress(address),
  };
}

/** A gateway customer record: every field is optional there, so blank or unusable ones are left out. */
export function customerRequest(person: PaymentPerson, description?: string): CreateCustomerRequest {
  const email = person.email?.trim();
  const firstName = fit(person.firstName, MAX.firstName);
  const lastName = fit(person.lastName, MAX.lastName);
  const phone = person.phone?.trim();
  const about = fit(description, MAX.description);
  return {
    ...(email && email.length >= 2 && email.length <= MAX.email ? { email } : {}),
    ...(firstName ? { firstName } : {}),
    ...(lastName ? { lastName } : {}),
    ...(phone && phone.length >= 2 ? { phone: phone.slice(0, MAX.phone) } : {}),
    ...(about ? { description: about } : {}),
  };
}

/** `{ goodsDetails }` for the request, or nothing when there are no items. */
function goodsField(items: readonly PaymentItem[] | undefined) {
  if (!items || items.length === 0) return {};
  const lines = items.map((item) => ({
    goodsTitle: item.title.slice(0, MAX.goodsTitle),
    goodsCount: String(item.quantity),
    goodsPrice: item.unitPrice,
  }));
  if (lines.length <= MAX_GOODS_LINES) return { goodsDetails: lines };
  // The rest are summarised in the last line.
  const rest = lines.slice(MAX_GOODS_LINES - 1);
  return {
    goodsDetails: [
      ...lines.slice(0, MAX_GOODS_LINES - 1),
      { goodsTitle: `${rest.length} more items`.slice(0, MAX.goodsTitle), goodsCount: '1', goodsPrice: '0' },
    ],
  };
}

/** The confirmCharge request of a saved card or of raw card data. */
export function chargeRequest(
  payment: PaymentRequest,
  source: Extract<PaymentSource, { kind: 'saved-card' | 'card-data' }>,
): ConfirmChargeRequest {
  const { customer } = payment;
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
    ...goodsField(payment.items),
    ...(payment.shippingAddress
      ? {
          shipping: {
            firstName: gatewayName(customer.firstName, MAX.firstName),
            lastName: gatewayName(customer.lastName, MAX.lastName),
            phone: gatewayPhone(customer.phone),
            address: gatewayAddress(payment.shippingAddress),
          },
        }
      : {}),
  };
  if (source.kind === 'saved-card') {
    request.customerPaymentMethodId = source.customerPaymentMethodId;
    const customerId = source.customerId ?? customer.gatewayCustomerId;
    if (customerId) request.customerId = customerId;
  } else {
    request.customerPaymentMethod = {
      billingDetail: billingDetail(customer, payment.billingAddress),
      card: source.card,
    };
  }
  return request;
}

/** The hosted checkout / local payment request; `paymentMethod` is the gateway's method name. */
export function hostedRequest(payment: PaymentRequest, paymentMethod: string): CheckoutPaymentRequest {
  const { customer } = payment;
  const billing = gatewayAddress(payment.billingAddress);
  const shipping = payment.shippingAddress ? gatewayAddress(payment.shippingAddress) : undefined;
  const firstName = gatewayName(customer.firstName, MAX.firstName);
  const lastName = gatewayName(customer.lastName, MAX.lastName);
  const phone = gatewayPhone(customer.phone);
  // The hosted request has one address line.
  const oneLine = (a: ChargeAddress) => [a.line1, a.line2].filter(Boolean).join(', ').slice(0, MAX.line);
  return {
    orderNo: payment.orderNo,
    orderAmount: payment.amount,
    orderCurrency: payment.currency.toUpperCase(),
    paymentMethod,
    customerId: customer.gatewayCustomerId ?? '',
    callbackUrl: payment.callbackUrl,
    returnUrl: payment.returnUrl,
    webSite: payment.webSite,
    customerIp: payment.customerIp,
    isMobile: payment.isMobile ?? '0',
    ...(payment.remark ? { remark: payment.remark } : {}),
    ...goodsField(payment.items),
    billingAddress: {
      address: oneLine(billing),
      city: billing.city,
      country: billing.country,
      email: customer.email.trim(),
      firstName,
      lastName,
      phone,
      ...(billing.state ? { state: billing.state } : {}),
      ...(billing.postalCode ? { zip: billing.postalCode } : {}),
    },
    ...(shipping
      ? {
          deliveryAddress: {
            shipAddress: oneLine(shipping),
            shipCity: shipping.city,
            shipCountry: shipping.country,
            shipFirstName: firstName,
            shipLastName: lastName,
            shipPhone: phone,
            ...(shipping.state ? { shipState: shipping.state } : {}),
            ...(shipping.postalCode ? { shipZip: shipping.postalCode } : {}),
          },
        }
      : {}),
  };
}

/** A refund of (part of) one successful trade, in the merchant's own currency amounts. */
export interface RefundOrder {
  /** The merchant's refund id: the same id again is the same refund at the gateway. */
  merTrackNo: string;
  tradeNo: string;
  /** Gateway amount strings of the refund and of the whole trade. */
  amount: string;
  paidAmount: string;
  currency: string;
  reason: string;
  remark?: string | undefined;
}

/**
 * `1` (full) only for the whole paid amount: the gateway refuses a full refund of anything else,
 * including the rest after partial refunds (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks).
 */
export function refundTypeOf(amount: string, paidAmount: string, currency: string): '1' | '2' {
  return sameOrderAmount(amount, paidAmount, currency.toUpperCase()) ? '1' : '2';
}

/** The createRefund body, with the gateway's refund type and field limits applied. */
export function refundRequest(order: RefundOrder): CreateRefundRequest {
  const remark = fit(order.remark, MAX_REFUND.remark);
  return {
    merTrackNo: order.merTrackNo,
    refundAmount: order.amount,
    refundReason: fit(order.reason, MAX_REFUND.reason) ?? 'Refund',
    refundType: refundTypeOf(order.amount, order.paidAmount, order.currency),
    ...(remark ? { remark } : {}),
    tradeNo: order.tradeNo,
  };
}

const MAX_REFUND = { reason: 256, remark: 500 } as const;
