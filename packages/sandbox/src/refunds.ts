/**
 * Refunds of a trade (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks): a ledger per
 * tradeNo (a full refund, or partial ones up to the paid amount), idempotent on the merchant's
 * `merTrackNo`, the test controls that make the next refunds fail or stay pending, and the `refund.*`
 * notifications, sent through the callback engine to the callbackUrl of the original payment
 * (docs/callbacks-and-returns.md#refund-and-chargeback-events).
 */
import { gatewayTimestamp, isoNow, type SandboxContext } from './context.js';
import { ERROR_CODES, minorToOrderAmount, orderAmountToMinor } from './core.js';
import { newBatchNo, newShortId } from './ids.js';
import { ControlError, GatewayReply, notFound } from './replies.js';
import type { OrderRecord, RefundOutcomeRule, RefundRecord, RefundStatus } from './store.js';

/** `reason` of a `refund.fail` when the control that failed it gave none. */
export const REFUND_FAIL_REASON = 'Refund declined by the acquirer';

const REFUND_STATUSES: readonly RefundStatus[] = ['pending', 'success', 'fail'];

/** The body of `POST /refund` once validated. */
export interface RefundRequest {
  merTrackNo: string;
  refundAmount: string;
  refundReason: string;
  /** `1` full, `2` partial. */
  refundType: '1' | '2';
  remark?: string | undefined;
  tradeNo: string;
}

const refused = (detail: string) => new GatewayReply(ERROR_CODES.PARAM, detail);

/** A gateway amount in the currency's minor units; a malformed one is `P0001` naming `field`. */
export function amountInMinor(value: string, currency: string, field: string): number {
  let minor: number;
  try {
    minor = orderAmountToMinor(value, currency);
  } catch (error) {
    // Core names the amount `orderAmount` in its messages; the caller's field is the one sent.
    const detail = error instanceof Error ? error.message.replace(/^.*?orderAmount:\s*/, '') : 'is invalid';
    throw refused(`${field}: ${detail}`);
  }
  if (minor <= 0) throw refused(`${field}: must be greater than zero`);
  return minor;
}

const money = (minor: number, currency: string) => `${minorToOrderAmount(minor, currency)} ${currency}`;

/** What the trade's refunds take from the paid amount: succeeded and pending ones (a failed refund gives nothing back). */
function refundedMinor(context: SandboxContext, order: OrderRecord): number {
  let total = 0;
  for (const refund of context.store.refundsOf(order.tradeNo)) {
    if (refund.refundStatus !== 'fail')
      total += orderAmountToMinor(refund.refundAmount, refund.refundCurrency);
  }
  return total;
}

/** The paid amount not yet refunded (nor held by a pending refund), as a gateway amount. */
export function refundableAmount(context: SandboxContext, order: OrderRecord): string {
  if (order.orderStatus !== 'success') return minorToOrderAmount(0, order.orderCurrency);
  const paid = orderAmountToMinor(order.orderAmount, order.orderCurrency);
  return minorToOrderAmount(Math.max(0, paid - refundedMinor(context, order)), order.orderCurrency);
}

/**
 * `POST /refund`. Refused (`P0001`, with the reason): a trade that did not succeed, a full refund
 * (`refundType` 1) of anything but the whole paid amount, more than what is left, a `merTrackNo` already
 * used for another trade or amount. Unknown trade: `P0002`. The same `merTrackNo` for the same trade and
 * amount answers the refund it made (no second refund), whatever became of it.
 */
export function applyRefund(
  context: SandboxContext,
  gatewayNo: string,
  request: RefundRequest,
): RefundRecord {
  const order = context.store.orders.get(request.tradeNo);
  if (!order || order.gatewayNo !== gatewayNo) throw notFound('tradeNo', request.tradeNo);
  const currency = order.orderCurrency;
  const minor = amountInMinor(request.refundAmount, currency, 'refundAmount');

  const earlier = context.store.refundByTrackNo(gatewayNo, request.merTrackNo);
  if (earlier) {
    const earlierMinor = orderAmountToMinor(earlier.refundAmount, earlier.refundCurrency);
    if (earlier.tradeNo !== order.tradeNo || earlierMinor !== minor) {
      throw refused(
        `merTrackNo ${request.merTrackNo} was already used for a refund of ${money(earlierMinor, earlier.refundCurrency)} on tradeNo ${earlier.tradeNo} (batchNo ${earlier.batchNo}); a new refund needs a new merTrackNo`,
      );
    }
    return earlier;
  }

  if (order.orderStatus !== 'success') {
    throw refused(
      `tradeNo ${order.tradeNo} is ${order.orderStatus}, not success: only a successful trade can be refunded`,
    );
  }
  const paid = orderAmountToMinor(order.orderAmount, currency);
  const left = paid - refundedMinor(context, order);
  if (request.refundType === '1' && minor !== paid) {
    throw refused(
      `a full refund (refundType 1) refunds the whole ${money(paid, currency)} of tradeNo ${order.tradeNo}; use refundType 2 for ${money(minor, currency)}`,
    );
  }
  if (minor > left) {
    throw refused(
      left <= 0
        ? `tradeNo ${order.tradeNo} is already fully refunded (${money(paid, currency)}): 0 ${currency} left to refund`
        : `refundAmount ${money(minor, currency)} is more than the ${money(left, currency)} left to refund on tradeNo ${order.tradeNo}`,
    );
  }

  const now = context.clock.now();
  const rule = takeRefundOutcome(context, order.tradeNo);
  const outcome = rule?.outcome ?? 'success';
  const refund: RefundRecord = {
    gatewayNo,
    batchNo: newBatchNo('R', now),
    merTrackNo: request.merTrackNo,
    tradeNo: order.tradeNo,
    orderNo: order.orderNo,
    refundAmount: minorToOrderAmount(minor, currency),
    refundCurrency: currency,
    refundType: request.refundType,
    refundReason: request.refundReason,
    remark: request.remark ?? '',
    refundStatus: outcome,
    failReason: outcome === 'fail' ? rule?.reason || REFUND_FAIL_REASON : '',
    refundDate: gatewayTimestamp(now),
    createdAt: isoNow(context),
    updatedAt: isoNow(context),
  };
  context.store.addRefund(refund);
  if (outcome !== 'pending') notifyRefund(context, order, refund);
  return refund;
}

/** A refund of this merchant, or `P0002`. */
export function findRefund(context: SandboxContext, gatewayNo: string, batchNo: string): RefundRecord {
  const refund = context.store.refunds.get(batchNo);
  if (!refund || refund.gatewayNo !== gatewayNo) throw notFound('batchNo', batchNo);
  return refund;
}

/** The answer of `GET /refund/{batchNo}`. */
export function refundView(refund: RefundRecord) {
  return {
    batchNo: refund.batchNo,
    merTrackNo: refund.merTrackNo,
    tradeNo: refund.tradeNo,
    orderNo: refund.orderNo,
    refundAmount: refund.refundAmount,
    refundCurrency: refund.refundCurrency,
    refundStatus: refund.refundStatus,
    refundReason: refund.refundReason,
    refundDate: refund.refundDate,
  };
}

/** Sends `refund.success` or `refund.fail` for a settled refund; `reason` is the merchant's reason, or why it failed. */
function notifyRefund(context: SandboxContext, order: OrderRecord, refund: RefundRecord): void {
  const success = refund.refundStatus === 'success';
  const data = {
    reason: success ? refund.refundReason : refund.failReason,
    amount: refund.refundAmount,
    batchNo: refund.batchNo,
    merTrackNo: refund.merTrackNo,
    orderAmount: order.orderAmount,
    orderNo: order.orderNo,
    tradeNo: order.tradeNo,
    orderCurrency: order.orderCurrency,
    currency: refund.refundCurrency,
    noticeDate: gatewayTimestamp(context.clock.now()),
  };
  const deliveries = context.callbacks.createNotice(
    order,
    success ? 'refund.success' : 'refund.fail',
    refund.batchNo,
    data,
  );
  void context.callbacks.start(deliveries);
}

export interface SettleRefundInput {
  status: 'success' | 'fail';
  /** Why it failed (`fail` only); default `Refund declined by the acquirer`. */
  reason?: string | undefined;
}

/** Settles a pending refund (test control) and sends its notification. Unknown: 404; already settled: 409. */
export function settleRefund(
  context: SandboxContext,
  batchNo: string,
  input: SettleRefundInput,
): RefundRecord {
  if (input.status !== 'success' && input.status !== 'fail')
    throw new ControlError('status must be "success" or "fail"');
  const refund = context.store.refunds.get(batchNo);
  if (!refund) throw new ControlError(`unknown refund batchNo ${batchNo}`, 404);
  if (refund.refundStatus !== 'pending')
    throw new ControlError(`refund ${batchNo} is already ${refund.refundStatus}`, 409);
  const order = context.store.orders.get(refund.tradeNo);
  refund.refundStatus = input.status;
  refund.failReason = input.status === 'fail' ? input.reason || REFUND_FAIL_REASON : '';
  refund.updatedAt = isoNow(context);
  if (order) notifyRefund(context, order, refund);
  return refund;
}

export interface RefundOutcomeInput {
  outcome: RefundStatus;
  /** Failure reason for `fail`. */
  reason?: string | undefined;
  /** How many refunds it applies to (default 1), or `always`. */
  times?: number | 'always' | undefined;
  /** Only refunds of this trade. */
  tradeNo?: string | undefined;
}

/** Queues what the next refund(s) do: `fail` (refused by the acquirer) or `pending` (until settled by hand). */
export function addRefundOutcome(context: SandboxContext, input: RefundOutcomeInput): RefundOutcomeRule {
  if (!REFUND_STATUSES.includes(input.outcome))
    throw new ControlError(`outcome must be one of ${REFUND_STATUSES.join(', ')}`);
  const times = input.times ?? 1;
  if (times !== 'always' && !(Number.isInteger(times) && times > 0))
    throw new ControlError('times must be a positive integer or "always"');
  const rule: RefundOutcomeRule = {
    id: newShortId('rout'),
    outcome: input.outcome,
    reason: input.outcome === 'fail' ? input.reason || REFUND_FAIL_REASON : '',
    tradeNo: input.tradeNo || undefined,
    remaining: times,
  };
  context.store.refundOutcomes.push(rule);
  return rule;
}

function takeRefundOutcome(context: SandboxContext, tradeNo: string): RefundOutcomeRule | undefined {
  const rules = context.store.refundOutcomes;
  const index = rules.findIndex((rule) => !rule.tradeNo || rule.tradeNo === tradeNo);
  const rule = rules[index];
  if (!rule) return undefined;
  if (rule.remaining !== 'always') {
    rule.remaining--;
    if (rule.remaining <= 0) rules.splice(index, 1);
  }
  return rule;
}
