import type { PaymentAddress, PaymentRequest } from '@gatewaykit/core';
import { ROUTE_PREFIX } from '../constants';
import type { GatewaykitPluginOptions } from '../types';
import type { ChargeSource } from './charge-source';
import { type PaymentErrorResult, paymentError } from './checkout-result';
import { gatewayItems, type LineLike } from './gateway-items';
import { vendureAmountToOrderAmount } from './vendure-money';

/**
 * Core's PaymentRequest for a Vendure order, built from plain order data so it is decided (and
 * refused) before any attempt is stored. Everything except the attempt's orderNo, which only the
 * claim may number.
 */

/** The address fields of Vendure's OrderAddress that the gateway needs. */
export interface AddressLike {
  streetLine1?: string;
  streetLine2?: string;
  city?: string;
  province?: string;
  postalCode?: string;
  countryCode?: string;
}

/** The parts of a Vendure Order the request is built from. */
export interface PayableOrder {
  totalWithTax: number;
  currencyCode: string;
  payments: readonly PaymentLike[];
  lines: readonly LineLike[];
  customer?: CustomerLike | undefined;
  billingAddress?: AddressLike | undefined;
  shippingAddress?: AddressLike | undefined;
}

/** A payment of the order; this plugin's payments name the currency they were made in. */
export interface PaymentLike {
  state: string;
  amount: number;
  metadata?: unknown;
}

interface CustomerLike {
  emailAddress: string;
  firstName: string;
  lastName: string;
  phoneNumber?: string | undefined;
}

/** Where the request comes from and where the gateway answers. */
export interface RequestSettings {
  /** The MoneyStrategy's precision (Vendure stores every currency with it). */
  precision: number;
  customerIp: string;
  webSite: string;
  returnUrl: string;
  callbackUrl: string;
}

export interface PreparedRequest {
  /** Vendure minor units, the amount of the Payment the attempt will add. */
  amount: number;
  request: Omit<PaymentRequest, 'orderNo'>;
}

/**
 * The currency a payment was made in, upper case: this plugin's payments say so in their metadata (as
 * may another handler's, in any case); a payment that does not is taken to be in the order's currency,
 * which is all Vendure itself knows of it.
 */
export function paymentCurrency(payment: PaymentLike, orderCurrency: string): string {
  const currency = (payment.metadata as { currency?: unknown } | null | undefined)?.currency;
  return (typeof currency === 'string' && currency !== '' ? currency : orderCurrency).toUpperCase();
}

/** Whether a payment holds money (settled or authorized); declined or cancelled ones do not. */
export function holdsMoney(payment: PaymentLike): boolean {
  return payment.state === 'Settled' || payment.state === 'Authorized';
}

/** Whether a payment counts toward an order in `orderCurrency` (see amountToPay). */
export function paidInCurrency(payment: PaymentLike, orderCurrency: string): boolean {
  return paymentCurrency(payment, orderCurrency) === orderCurrency.toUpperCase();
}

/**
 * Payments that already hold money reduce what is charged; declined or cancelled ones do not, and
 * neither do payments made in another currency: Vendure moves an order to the currency of the request
 * that changes it and keeps amounts as bare integers, so ¥1,500 must never count as $1,500.
 */
export function amountToPay(order: Pick<PayableOrder, 'totalWithTax' | 'payments' | 'currencyCode'>): number {
  const covered = order.payments
    .filter((p) => holdsMoney(p) && paidInCurrency(p, order.currencyCode))
    .reduce((sum, p) => sum + p.amount, 0);
  return order.totalWithTax - covered;
}

/**
 * Whether a request prepared from an earlier read still fits the order once this attempt holds the
 * order's claim: an attempt that finished meanwhile (a double click) has recorded its payment by then,
 * so the order is `paid`, or `changed` (another amount, another state); undefined: send it.
 */
export function staleRequest(
  prepared: { amount: number; currency: string },
  current: Pick<PayableOrder, 'totalWithTax' | 'payments' | 'currencyCode'> & { state: string },
): 'paid' | 'changed' | undefined {
  const left = amountToPay(current);
  if (left <= 0) return 'paid';
  // Vendure keeps amounts as bare integers: the same number in another currency is another order.
  if (
    current.state !== 'ArrangingPayment' ||
    left !== prepared.amount ||
    current.currencyCode !== prepared.currency
  ) {
    return 'changed';
  }
  return undefined;
}

/** The request for what is left to pay, or why no request can be sent for this order. */
export function buildPaymentRequest(
  order: PayableOrder,
  charge: ChargeSource,
  settings: RequestSettings,
): PreparedRequest | PaymentErrorResult {
  const amount = amountToPay(order);
  if (amount <= 0) return paymentError('NOTHING_TO_PAY', 'The order is already covered by its payments');
  let orderAmount: string;
  try {
    orderAmount = vendureAmountToOrderAmount(amount, order.currencyCode, settings.precision);
  } catch (e) {
    return paymentError('UNSUPPORTED_AMOUNT', e instanceof Error ? e.message : String(e));
  }
  const goods = gatewayItems(order.lines, order.currencyCode, settings.precision);
  if ('error' in goods) return paymentError('UNSUPPORTED_AMOUNT', goods.error);

  const customer = order.customer;
  if (!customer) return paymentError('ORDER_STATE_ERROR', 'The order has no customer');
  return {
    amount,
    request: {
      source: charge.source,
      amount: orderAmount,
      currency: order.currencyCode,
      customer: {
        email: customer.emailAddress,
        // Empty names are left to core's request builders, which apply the gateway's name rule.
        firstName: customer.firstName,
        lastName: customer.lastName,
        ...(customer.phoneNumber ? { phone: customer.phoneNumber } : {}),
        ...(charge.gatewayCustomerId ? { gatewayCustomerId: charge.gatewayCustomerId } : {}),
      },
      // Storefronts that skip the billing form leave an empty billing address: bill the shipping one.
      billingAddress: toAddress(
        order.billingAddress?.streetLine1 ? order.billingAddress : order.shippingAddress,
      ),
      shippingAddress: toAddress(order.shippingAddress),
      items: goods.items,
      customerIp: settings.customerIp,
      webSite: settings.webSite,
      returnUrl: settings.returnUrl,
      callbackUrl: settings.callbackUrl,
    },
  };
}

/** The gateway requires line1, city and country; placeholders keep an incomplete address sendable. */
export function toAddress(address: AddressLike | undefined): PaymentAddress {
  return {
    line1: address?.streetLine1 || 'n/a',
    ...(address?.streetLine2 ? { line2: address.streetLine2 } : {}),
    city: address?.city || 'n/a',
    country: (address?.countryCode || 'US').toUpperCase(),
    ...(address?.province ? { state: address.province } : {}),
    ...(address?.postalCode ? { postalCode: address.postalCode } : {}),
  };
}

/**
 * The plugin's callback or return route for a method of a channel: the channel token and method code
 * in the path tell the controller which credentials verify what arrives there.
 */
export function gatewayUrl(
  kind: 'callback' | 'return',
  vendureHost: string,
  channelToken: string,
  methodCode: string,
): string {
  const host = vendureHost.replace(/\/+$/, '');
  return `${host}/${ROUTE_PREFIX}/${kind}/${encodeURIComponent(channelToken)}/${encodeURIComponent(methodCode)}`;
}

/** `webSite` of the request: configured, else the storefront's host. */
export function webSiteOf(options: Pick<GatewaykitPluginOptions, 'webSite' | 'storefrontOrderUrl'>): string {
  if (options.webSite) return options.webSite;
  try {
    return new URL(options.storefrontOrderUrl.replace('{code}', 'x')).host;
  } catch {
    return 'localhost';
  }
}
