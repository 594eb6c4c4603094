/**
 * Chargebacks, raised on a paid trade by a test control: recorded for `GET /chargebacks` and announced
 * by a signed `chargeback.success` notification to the original payment's callbackUrl
 * (docs/callbacks-and-returns.md#refund-and-chargeback-events).
 */
import { gatewayTimestamp, isoNow, type SandboxContext } from './context.js';
import { minorToOrderAmount, orderAmountToMinor } from './core.js';
import { newBatchNo } from './ids.js';
import { amountInMinor } from './refunds.js';
import { ControlError, GatewayReply } from './replies.js';
import type { ChargebackRecord } from './store.js';

export const CHARGEBACK_REASON = '4855-Non-Receipt of Goods or Services';
/** Default time the merchant has to answer, from the notice. */
export const CHARGEBACK_REPLY_DAYS = 7;

export interface ChargebackInput {
  tradeNo: string;
  /** Default: the whole paid amount; at most that. */
  amount?: string | undefined;
  reason?: string | undefined;
  /** Default: 7 days after the notice. Any text is kept as given. */
  replyDeadline?: string | undefined;
  /** Default: the notice time. */
  cpdDate?: string | undefined;
}

const text = (value: unknown, field: string): string | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 200)
    throw new ControlError(`${field} must be a string of at most 200 characters`);
  return value;
};

/** Raises a chargeback on a successful trade. Unknown trade: 404; a trade that was not paid: 409. */
export function raiseChargeback(context: SandboxContext, input: ChargebackInput): ChargebackRecord {
  const tradeNo = text(input.tradeNo, 'tradeNo');
  if (!tradeNo) throw new ControlError('tradeNo is required');
  const order = context.store.orders.get(tradeNo);
  if (!order) throw new ControlError(`unknown tradeNo ${tradeNo}`, 404);
  if (order.orderStatus !== 'success')
    throw new ControlError(
      `tradeNo ${tradeNo} is ${order.orderStatus}: only a paid trade can be charged back`,
      409,
    );
  const currency = order.orderCurrency;
  const paid = orderAmountToMinor(order.orderAmount, currency);
  const amountText = text(input.amount, 'amount');
  let minor = paid;
  if (amountText !== undefined) {
    try {
      minor = amountInMinor(amountText, currency, 'amount');
    } catch (error) {
      throw new ControlError(
        error instanceof GatewayReply ? error.message.replace(/^[^:]*: /, '') : 'amount is invalid',
      );
    }
    if (minor > paid) throw new ControlError(`amount is more than the ${order.orderAmount} ${currency} paid`);
  }
  const now = context.clock.now();
  const noticeDate = gatewayTimestamp(now);
  const chargeback: ChargebackRecord = {
    gatewayNo: order.gatewayNo,
    batchNo: newBatchNo('CB', now),
    tradeNo: order.tradeNo,
    orderNo: order.orderNo,
    amount: minorToOrderAmount(minor, currency),
    currency,
    reason: text(input.reason, 'reason') ?? CHARGEBACK_REASON,
    replyDeadline:
      text(input.replyDeadline, 'replyDeadline') ??
      gatewayTimestamp(now + CHARGEBACK_REPLY_DAYS * 24 * 60 * 60 * 1000),
    cpdDate: text(input.cpdDate, 'cpdDate') ?? noticeDate,
    noticeDate,
    createdAt: isoNow(context),
  };
  context.store.chargebacks.push(chargeback);
  const data = {
    chargebackInfo: { replyDeadline: chargeback.replyDeadline, cpdDate: chargeback.cpdDate },
    reason: chargeback.reason,
    amount: chargeback.amount,
    batchNo: chargeback.batchNo,
    orderAmount: order.orderAmount,
    orderNo: order.orderNo,
    tradeNo: order.tradeNo,
    orderCurrency: currency,
    noticeDate,
    currency,
  };
  void context.callbacks.start(
    context.callbacks.createNotice(order, 'chargeback.success', chargeback.batchNo, data),
  );
  return chargeback;
}

/** An item of `GET /chargebacks`. */
export function chargebackView(chargeback: ChargebackRecord) {
  return {
    batchNo: chargeback.batchNo,
    tradeNo: chargeback.tradeNo,
    orderNo: chargeback.orderNo,
    amount: chargeback.amount,
    currency: chargeback.currency,
    reason: chargeback.reason,
    replyDeadline: chargeback.replyDeadline,
    cpdDate: chargeback.cpdDate,
    noticeDate: chargeback.noticeDate,
  };
}
