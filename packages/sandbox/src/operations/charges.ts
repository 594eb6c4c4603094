/** Operations 1, 12, 13: confirmCharge, checkout/payment, local_payment (docs/gateway-protocol.md#request-constraints). */
import type { z } from 'zod';
import { type CardSummary, summarizeCard } from '../cards.js';
import type { SandboxContext } from '../context.js';
import {
  type checkoutPaymentRequestSchema,
  type confirmChargeRequestSchema,
  ERROR_CODES,
  type localPaymentRequestSchema,
  normalizeLocalPaymentMethod,
} from '../core.js';
import {
  assertNotPaid,
  createOrder,
  ORDER_INFO,
  orderView,
  settleAndNotify,
  startDelayedSuccess,
} from '../orders.js';
import { GatewayReply } from '../replies.js';
import { findCustomer } from './customers.js';
import { findPaymentMethod } from './payment-methods.js';

type ChargeRequest = z.output<typeof confirmChargeRequestSchema>;

/** The card behind the charge: a stored method's recorded behaviour, or the raw number looked at now. */
function chargeCard(context: SandboxContext, gatewayNo: string, body: ChargeRequest): CardSummary {
  if (body.customerPaymentMethodId) {
    const method = findPaymentMethod(context, gatewayNo, body.customerPaymentMethodId);
    if (body.customerId && method.customerId && method.customerId !== body.customerId) {
      throw new GatewayReply(
        ERROR_CODES.PARAM_NULL,
        `customerPaymentMethodId ${method.customerPaymentMethodId} does not belong to customerId ${body.customerId}`,
      );
    }
    // An unattached method is bound to customerId when the charge succeeds: that customer must be one of
    // this merchant's, checked before anything is charged.
    if (body.customerId && !method.customerId) findCustomer(context, gatewayNo, body.customerId);
    return {
      brand: method.card.brand,
      last4: method.card.last4,
      maskCardNo: method.maskCardNo,
      behaviour: method.behaviour,
    };
  }
  const cardNo = body.customerPaymentMethod?.card.cardNo;
  if (!cardNo) throw new GatewayReply(ERROR_CODES.PARAM_NULL, 'customerPaymentMethod.card.cardNo is missing');
  return summarizeCard(cardNo);
}

export function confirmCharge(context: SandboxContext, gatewayNo: string, body: ChargeRequest) {
  assertNotPaid(context, gatewayNo, body.orderNo);
  const card = chargeCard(context, gatewayNo, body);
  const challenge = card.behaviour === 'challenge' || card.behaviour === 'challenge-fail';
  const order = createOrder(context, gatewayNo, {
    orderNo: body.orderNo,
    kind: 'charge',
    orderAmount: body.orderAmount,
    orderCurrency: body.orderCurrency,
    orderStatus: 'pending',
    orderInfo: challenge ? ORDER_INFO.challenge : ORDER_INFO.pending,
    maskCardNo: card.maskCardNo,
    brand: card.brand,
    last4: card.last4,
    behaviour: card.behaviour,
    customerId: body.customerId,
    customerPaymentMethodId: body.customerPaymentMethodId,
    remark: body.remark ?? '',
    returnUrl: body.returnUrl,
    callbackUrl: body.callbackUrl,
    page: challenge ? '3ds' : undefined,
  });
  switch (card.behaviour) {
    case 'success':
      settleAndNotify(context, order, 'success', ORDER_INFO.approved);
      break;
    case 'decline':
      settleAndNotify(context, order, 'fail', ORDER_INFO.declined);
      break;
    case 'invalid':
      settleAndNotify(context, order, 'fail', ORDER_INFO.invalidCard);
      break;
    case 'pending':
      startDelayedSuccess(context, order);
      break;
    default:
      // 3-D Secure: the challenge page decides.
      break;
  }
  return orderView(order);
}

type HostedRequest =
  | z.output<typeof checkoutPaymentRequestSchema>
  | z.output<typeof localPaymentRequestSchema>;

function preOrder(
  context: SandboxContext,
  gatewayNo: string,
  body: HostedRequest,
  kind: 'checkout' | 'local',
  paymentMethod: string,
) {
  assertNotPaid(context, gatewayNo, body.orderNo);
  const order = createOrder(context, gatewayNo, {
    orderNo: body.orderNo,
    kind,
    orderAmount: body.orderAmount,
    orderCurrency: body.orderCurrency,
    orderStatus: 'pending',
    orderInfo: ORDER_INFO.waiting,
    maskCardNo: '',
    paymentMethod,
    customerId: body.customerId || undefined,
    remark: body.remark ?? '',
    returnUrl: body.returnUrl,
    callbackUrl: body.callbackUrl,
    page: kind,
  });
  return orderView(order);
}

/** Hosted card page pre-order: pending + redirectUrl to the card page. */
export function checkoutPayment(
  context: SandboxContext,
  gatewayNo: string,
  body: z.output<typeof checkoutPaymentRequestSchema>,
) {
  return preOrder(context, gatewayNo, body, 'checkout', body.paymentMethod);
}

/** Local method pre-order: the 14 names match case-insensitively; the canonical spelling is kept. */
export function localPayment(
  context: SandboxContext,
  gatewayNo: string,
  body: z.output<typeof localPaymentRequestSchema>,
) {
  const method = normalizeLocalPaymentMethod(body.paymentMethod);
  if (!method)
    throw new GatewayReply(
      ERROR_CODES.PARAM,
      `paymentMethod: ${body.paymentMethod} is not a local payment method`,
    );
  return preOrder(context, gatewayNo, body, 'local', method);
}
