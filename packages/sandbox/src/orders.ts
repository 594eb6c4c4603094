/**
 * Order lifecycle shared by the API and the hosted pages: pending → success | fail, never back.
 * Settling an order records the result, creates its callback and builds the signed browser return.
 */
import type { CallbackDelivery } from './callbacks.js';
import { isoNow, type SandboxContext } from './context.js';
import { type RETURN_FIELD_NAMES, signedReturnQuery } from './core.js';
import { newTradeNo } from './ids.js';
import { bindOnSuccess } from './operations/payment-methods.js';
import { DUPLICATE_ORDER_CODE, GatewayReply } from './replies.js';
import { type OrderPage, type OrderRecord, type OrderStatus, orderSummary } from './store.js';

export const ORDER_INFO = {
  approved: 'Transaction Approved',
  declined: 'Card declined',
  invalidCard: 'Invalid card number',
  challenge: '3-D Secure authentication required',
  challengeFailed: '3-D Secure authentication failed',
  pending: 'Transaction pending',
  waiting: 'Waiting for the shopper on the payment page',
  abandoned: 'Payment abandoned by the shopper',
  rejectedOnPage: 'Payment failed',
} as const;

type NewOrder = Omit<OrderRecord, 'tradeNo' | 'createdAt' | 'updatedAt' | 'redirectUrl' | 'gatewayNo'>;

/** A second charge of an orderNo that already succeeded is refused (the gateway's I0061 Duplicate Order). */
export function assertNotPaid(context: SandboxContext, gatewayNo: string, orderNo: string): void {
  if (context.store.paidOrder(gatewayNo, orderNo)) {
    throw new GatewayReply(DUPLICATE_ORDER_CODE, `orderNo ${orderNo} was already paid`);
  }
}

export function createOrder(context: SandboxContext, gatewayNo: string, fields: NewOrder): OrderRecord {
  const now = isoNow(context);
  const tradeNo = newTradeNo(context.clock.now());
  // Every field is written here, in one order, so all orders share one object shape (fast property access).
  const order: OrderRecord = {
    gatewayNo,
    tradeNo,
    orderNo: fields.orderNo,
    kind: fields.kind,
    orderAmount: fields.orderAmount,
    orderCurrency: fields.orderCurrency,
    orderStatus: fields.orderStatus,
    orderInfo: fields.orderInfo,
    maskCardNo: fields.maskCardNo,
    brand: fields.brand,
    last4: fields.last4,
    behaviour: fields.behaviour,
    paymentMethod: fields.paymentMethod,
    customerId: fields.customerId,
    customerPaymentMethodId: fields.customerPaymentMethodId,
    remark: fields.remark,
    returnUrl: fields.returnUrl,
    callbackUrl: fields.callbackUrl,
    page: fields.page,
    redirectUrl: fields.page ? pageUrl(context, fields.page, tradeNo) : undefined,
    returnedAt: undefined,
    createdAt: now,
    updatedAt: now,
  };
  context.store.orders.set(order.tradeNo, order);
  return order;
}

function pageUrl(context: SandboxContext, page: OrderPage, tradeNo: string): string {
  return `${context.publicUrl()}/pay/${page}/${encodeURIComponent(tradeNo)}`;
}

/** The result `data` of confirmCharge, checkout/payment and local_payment. */
export function orderView(order: OrderRecord) {
  // Properties added to the summary rather than spread into a new literal: V8 copies a spread
  // followed by more properties on a slow path (~2 µs), and this runs on every charge answer.
  const view: ReturnType<typeof orderSummary> & { redirectUrl?: string; riskInfos?: string } =
    orderSummary(order);
  view.redirectUrl = order.orderStatus === 'pending' ? (order.redirectUrl ?? '') : '';
  view.riskInfos = '';
  return view as Required<typeof view>;
}

/**
 * Moves a pending order to its final status and creates its callback deliveries (not yet sent:
 * the caller decides when, relative to the browser return). A final order never changes again.
 */
export function settle(
  context: SandboxContext,
  order: OrderRecord,
  status: Exclude<OrderStatus, 'pending'>,
  orderInfo: string,
): CallbackDelivery[] {
  if (order.orderStatus !== 'pending') return [];
  let finalStatus = status;
  let finalInfo = orderInfo;
  const paid = context.store.paidOrder(order.gatewayNo, order.orderNo);
  if (status === 'success' && paid && paid.tradeNo !== order.tradeNo) {
    // Two open attempts of one orderNo: only the first to succeed is paid.
    finalStatus = 'fail';
    finalInfo = `${DUPLICATE_ORDER_CODE}:Duplicate Order: orderNo ${order.orderNo} was already paid`;
  }
  order.orderStatus = finalStatus;
  order.orderInfo = finalInfo;
  if (finalStatus === 'success') {
    context.store.markPaid(order);
    bindOnSuccess(context, order);
  }
  order.page = undefined;
  order.updatedAt = isoNow(context);
  return context.callbacks.create(
    order,
    finalStatus === 'success' ? 'transaction.success' : 'transaction.fail',
  );
}

/** Settles and sends the callback right away (API-side outcomes). */
export function settleAndNotify(
  context: SandboxContext,
  order: OrderRecord,
  status: Exclude<OrderStatus, 'pending'>,
  orderInfo: string,
): void {
  void context.callbacks.start(settle(context, order, status, orderInfo));
}

/** The "pending, succeeds later by callback only" card: pending event now, success after a short virtual delay. */
export function startDelayedSuccess(context: SandboxContext, order: OrderRecord): void {
  void context.callbacks.start(context.callbacks.create(order, 'transaction.pending'));
  context.clock.schedule(context.pendingDelayMs, context.pendingDelayMs * context.timeScale, () => {
    const current = context.store.orders.get(order.tradeNo);
    if (current === order) settleAndNotify(context, order, 'success', ORDER_INFO.approved);
  });
}

/** The 11 return fields (docs/callbacks-and-returns.md#return-fields); merNo is the first 5 digits of the gateway number. */
export function returnFields(order: OrderRecord): Record<(typeof RETURN_FIELD_NAMES)[number], string> {
  const success = order.orderStatus === 'success';
  return {
    code: '0000',
    gatewayNo: order.gatewayNo,
    maskCardNo: order.maskCardNo,
    merNo: order.gatewayNo.slice(0, 5),
    message: success ? 'Success' : order.orderInfo,
    orderAmount: order.orderAmount,
    orderCurrency: order.orderCurrency,
    orderInfo: order.orderInfo,
    orderNo: order.orderNo,
    orderStatus: order.orderStatus,
    tradeNo: order.tradeNo,
  };
}

/** returnUrl with the 11 fields and signInfo appended, keeping the merchant's own parameters; undefined if returnUrl is not absolute. */
export function returnLocation(context: SandboxContext, order: OrderRecord): string | undefined {
  const merchant = context.merchants.get(order.gatewayNo);
  let url: URL;
  try {
    url = new URL(order.returnUrl);
  } catch {
    return undefined;
  }
  if (!merchant) return undefined;
  for (const [name, value] of signedReturnQuery(returnFields(order), merchant.signKey))
    url.searchParams.set(name, value);
  return url.toString();
}
