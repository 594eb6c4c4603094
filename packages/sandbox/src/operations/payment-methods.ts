/** Operations 2–7: stored payment methods (docs/gateway-protocol.md#payment-methods). */
import type { z } from 'zod';
import { summarizeCard } from '../cards.js';
import { gatewayTimestamp, type SandboxContext } from '../context.js';
import type { createPaymentMethodRequestSchema, updatePaymentMethodRequestSchema } from '../core.js';
import { newPaymentMethodId } from '../ids.js';
import { notFound } from '../replies.js';
import type { PaymentMethodRecord } from '../store.js';
import { findCustomer } from './customers.js';

/**
 * The payment method structure of create, update, retrieve, attach (and detach, and list items). As the
 * API document gives it, it names no owner (docs/card-element.md#who-owns-a-card): a plugin must not
 * learn one from it, so the sandbox keeps the owner to itself.
 */
function paymentMethodView(method: PaymentMethodRecord) {
  return {
    customerPaymentMethodId: method.customerPaymentMethodId,
    card: { ...method.card },
    billingDetail: method.billingDetail,
    created: method.created,
  };
}

export function findPaymentMethod(
  context: SandboxContext,
  gatewayNo: string,
  id: string,
): PaymentMethodRecord {
  const method = context.store.paymentMethods.get(id);
  if (!method || method.gatewayNo !== gatewayNo) throw notFound('customerPaymentMethodId', id);
  return method;
}

/** What a new payment method is made of: the card as received, looked at once and never kept. */
export interface NewPaymentMethod {
  card: { cardNo: string };
  billingDetail: PaymentMethodRecord['billingDetail'];
  customerId?: string | undefined;
}

/**
 * Stores a payment method of `gatewayNo`: createPaymentMethod and the card element both come here. The
 * customer, when given, must be one of this merchant's; the number is looked at here, once, and only
 * brand, last4, mask and the test behaviour are kept.
 */
export function storePaymentMethod(
  context: SandboxContext,
  gatewayNo: string,
  input: NewPaymentMethod,
): PaymentMethodRecord {
  if (input.customerId) findCustomer(context, gatewayNo, input.customerId);
  const summary = summarizeCard(input.card.cardNo);
  const method: PaymentMethodRecord = {
    gatewayNo,
    customerPaymentMethodId: newPaymentMethodId(),
    customerId: input.customerId ?? null,
    card: { brand: summary.brand, last4: summary.last4 },
    maskCardNo: summary.maskCardNo,
    behaviour: summary.behaviour,
    billingDetail: input.billingDetail,
    created: gatewayTimestamp(context.clock.now()),
  };
  context.store.paymentMethods.set(method.customerPaymentMethodId, method);
  return method;
}

export function createPaymentMethod(
  context: SandboxContext,
  gatewayNo: string,
  body: z.output<typeof createPaymentMethodRequestSchema>,
) {
  return paymentMethodView(storePaymentMethod(context, gatewayNo, body));
}

/**
 * A charge that succeeded with an unattached method and a customerId binds the method to that customer
 * (docs/card-element.md): the gateway's "a non-empty customerId binds it".
 */
export function bindOnSuccess(
  context: SandboxContext,
  order: { gatewayNo: string; customerId?: string | undefined; customerPaymentMethodId?: string | undefined },
): void {
  if (!order.customerId || !order.customerPaymentMethodId) return;
  const method = context.store.paymentMethods.get(order.customerPaymentMethodId);
  if (!method || method.gatewayNo !== order.gatewayNo || method.customerId !== null) return;
  const customer = context.store.customers.get(order.customerId);
  if (customer?.gatewayNo === order.gatewayNo) method.customerId = order.customerId;
}

export function updatePaymentMethod(
  context: SandboxContext,
  gatewayNo: string,
  body: z.output<typeof updatePaymentMethodRequestSchema>,
) {
  const method = findPaymentMethod(context, gatewayNo, body.customerPaymentMethodId);
  method.billingDetail = body.billingDetail;
  return paymentMethodView(method);
}

export function retrievePaymentMethod(context: SandboxContext, gatewayNo: string, id: string) {
  return paymentMethodView(findPaymentMethod(context, gatewayNo, id));
}

/** `data` is an array, as the official plugins read it. */
export function listPaymentMethods(context: SandboxContext, gatewayNo: string, customerId: string) {
  findCustomer(context, gatewayNo, customerId);
  return [...context.store.paymentMethods.values()]
    .filter((method) => method.gatewayNo === gatewayNo && method.customerId === customerId)
    .map(paymentMethodView);
}

export function attachPaymentMethod(
  context: SandboxContext,
  gatewayNo: string,
  id: string,
  customerId: string,
) {
  const method = findPaymentMethod(context, gatewayNo, id);
  findCustomer(context, gatewayNo, customerId);
  method.customerId = customerId;
  return paymentMethodView(method);
}

export function detachPaymentMethod(context: SandboxContext, gatewayNo: string, id: string) {
  const method = findPaymentMethod(context, gatewayNo, id);
  method.customerId = null;
  return paymentMethodView(method);
}
