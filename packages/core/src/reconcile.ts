/**
 * Reconciliation (docs/gateway-protocol.md#reconciliation): settles a payment attempt whose answer and
 * notifications were lost by reading the gateway's own record of it, and a refund whose notification
 * was lost by querying it. Nothing is sent that moves money; the outcome produced is the one a callback
 * would have given, and adapters record it with `recordOutcome` (same decision, amount check and
 * monotonic merge as callbacks).
 */
import type { GatewayClient } from './client.js';
import { sameOrderAmount } from './money.js';
import type { RefundEvent } from './notification-events.js';
import { outcomeFromOrderFields, type PaymentOutcome } from './outcome.js';
import { redactText } from './redact.js';
import type { RefundRecord } from './schemas/refunds.js';
import type { TransactionRecord } from './schemas/transactions.js';

/** What the adapter stored when it sent the attempt. */
export interface ReconcileAttemptInput {
  /** The orderNo the attempt was sent with (one per attempt). */
  orderNo: string;
  /** When the attempt was sent to the gateway. */
  sentAt: Date;
  /** The exact orderAmount sent, and its currency. */
  orderAmount: string;
  currency: string;
}

export interface ReconcileAttemptOptions {
  /** The time now (default `new Date()`). */
  now?: Date | number;
  /**
   * How long after sending the gateway's having no record means nothing was charged (default 30
   * minutes). Before that, no record means the payment may still be on its way: left pending.
   */
  pendingAfterMs?: number;
  /** How far before and after `sentAt` the gateway is asked (default one day each way). */
  windowMs?: number;
  signal?: AbortSignal;
}

export interface AttemptReconciliation {
  orderNo: string;
  /** The outcome to record, as a callback would have given it; undefined: nothing to record yet. */
  outcome: PaymentOutcome | undefined;
  /** Why, in words for the log and the admin. */
  reason: string;
}

/** Failure reason of an attempt the gateway never recorded. */
export const NO_GATEWAY_RECORD = 'the gateway has no record of this payment';

export const DEFAULT_PENDING_AFTER_MS = 30 * 60 * 1000;
export const DEFAULT_RECONCILE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Room for one orderNo's trades: one attempt is one orderNo, so a page this size holds them all. */
const PAGE_SIZE = 100;

/** `YYYY-MM-DDTHH:mm:ss` in UTC, the form the record queries take. */
export function recordQueryTime(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 19);
}

function describe(error: unknown): string {
  return redactText(error instanceof Error ? error.message : String(error));
}

/** How far along a trade is: a success outweighs anything (money was taken), then a pending one. */
const TRADE_RANK = { success: 2, pending: 1, fail: 0 } as const;

/** The trade that settles the attempt when the gateway holds several for one orderNo. */
function decisiveTrade(records: readonly TransactionRecord[]): TransactionRecord | undefined {
  let best: TransactionRecord | undefined;
  for (const record of records) {
    if (!best || TRADE_RANK[record.tradeStatus] > TRADE_RANK[best.tradeStatus]) best = record;
  }
  return best;
}

/** The payment outcome of the gateway's record of a trade: what a callback with these fields gives. */
export function outcomeFromTransaction(record: TransactionRecord): PaymentOutcome {
  return outcomeFromOrderFields({
    orderNo: record.orderNo,
    tradeNo: record.tradeNo,
    orderStatus: record.tradeStatus,
    orderInfo: record.tradeInfo,
    orderAmount: record.tradeAmount,
    orderCurrency: record.tradeCurrency,
  });
}

/**
 * Asks the gateway for its record of one attempt (`listTransactions` by orderNo, around `sentAt`) and
 * gives the outcome a callback would have given. No record: `failed` ("the gateway has no record of
 * this payment", nothing was charged) once the attempt is older than `pendingAfterMs`, otherwise
 * nothing yet. A query that fails gives nothing, with the reason. The amount is not judged here:
 * recordOutcome compares it with the attempt, as for a callback.
 */
export async function reconcileAttempt(
  client: Pick<GatewayClient, 'transactions'>,
  attempt: ReconcileAttemptInput,
  options: ReconcileAttemptOptions = {},
): Promise<AttemptReconciliation> {
  const { orderNo } = attempt;
  const now = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  const sentAt = attempt.sentAt.getTime();
  const windowMs = options.windowMs ?? DEFAULT_RECONCILE_WINDOW_MS;
  const pendingAfterMs = options.pendingAfterMs ?? DEFAULT_PENDING_AFTER_MS;
  if (Number.isNaN(sentAt)) {
    return { orderNo, outcome: undefined, reason: 'the attempt has no valid sending time' };
  }
  let records: TransactionRecord[];
  try {
    // The times are UTC; the gateway's own time zone is not published, so the window reaches a day
    // either side of sentAt, and the orderNo does the matching.
    const { list } = await client.transactions.list(
      {
        startTime: recordQueryTime(sentAt - windowMs),
        endTime: recordQueryTime(sentAt + windowMs),
        orderNo,
        pageIndex: 1,
        pageSize: PAGE_SIZE,
      },
      options.signal ? { signal: options.signal } : undefined,
    );
    records = list.filter((record) => record.orderNo === orderNo);
  } catch (error) {
    return {
      orderNo,
      outcome: undefined,
      reason: `the gateway's records could not be read (${describe(error)}); try again later`,
    };
  }
  const trade = decisiveTrade(records);
  if (!trade) {
    const ageMs = now - sentAt;
    if (ageMs > pendingAfterMs) {
      return {
        orderNo,
        outcome: { orderNo, status: 'failed', reason: NO_GATEWAY_RECORD, code: 'NO_GATEWAY_RECORD' },
        reason: `${NO_GATEWAY_RECORD} ${Math.round(ageMs / 60_000)} minutes after it was sent: nothing was charged`,
      };
    }
    return {
      orderNo,
      outcome: undefined,
      reason: `${NO_GATEWAY_RECORD} yet; it was sent ${Math.max(0, Math.round(ageMs / 1000))} s ago, so it is still pending`,
    };
  }
  if (trade.tradeStatusText !== undefined) {
    return {
      orderNo,
      outcome: undefined,
      reason: redactText(
        `the gateway recorded trade ${trade.tradeNo} with the unrecognised status ${trade.tradeStatusText}; left as it is`,
      ),
    };
  }
  const outcome = outcomeFromTransaction(trade);
  // Only said: recordOutcome decides what a different amount means (docs/payment-states.md#amount-check).
  const currency = attempt.currency.toUpperCase();
  const sameAmount =
    trade.tradeCurrency.toUpperCase() === currency &&
    sameOrderAmount(trade.tradeAmount, attempt.orderAmount, currency);
  const otherAmount = sameAmount
    ? ''
    : ` (for ${trade.tradeAmount} ${trade.tradeCurrency}; ${attempt.orderAmount} ${attempt.currency} was sent)`;
  return {
    orderNo,
    outcome,
    reason: `the gateway recorded trade ${trade.tradeNo} as ${trade.tradeStatus}${otherAmount}`,
  };
}

export interface RefundReconciliation {
  batchNo: string;
  /** The settled refund, as its notification would have said it; undefined while pending or unread. */
  event: RefundEvent | undefined;
  /** The gateway's record as read, when the query answered. */
  record?: RefundRecord | undefined;
  reason: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** The refund event of the gateway's record of a settled refund; undefined while it is pending. */
export function refundEventFromRecord(record: RefundRecord): RefundEvent | undefined {
  if (record.refundStatus === 'pending') return undefined;
  const reason = nonEmpty(record.refundReason);
  return {
    kind: 'refund',
    status: record.refundStatus === 'success' ? 'succeeded' : 'failed',
    batchNo: record.batchNo,
    merTrackNo: nonEmpty(record.merTrackNo),
    tradeNo: nonEmpty(record.tradeNo),
    orderNo: nonEmpty(record.orderNo),
    amount: nonEmpty(record.refundAmount),
    currency: nonEmpty(record.refundCurrency),
    reason: reason === undefined ? undefined : redactText(reason),
    noticeDate: nonEmpty(record.refundDate),
  };
}

/**
 * Reads one refund (`retrieveRefund`) and gives the event its `refund.*` notification would have given:
 * the adapter settles it the same way. Pending, an unrecognised status or a failed query: no event, and
 * the reason says which.
 */
export async function reconcileRefund(
  client: Pick<GatewayClient, 'refunds'>,
  batchNo: string,
  options: { signal?: AbortSignal } = {},
): Promise<RefundReconciliation> {
  let record: RefundRecord;
  try {
    record = await client.refunds.retrieve(batchNo, options.signal ? { signal: options.signal } : undefined);
  } catch (error) {
    return {
      batchNo,
      event: undefined,
      reason: `the gateway's record of refund ${batchNo} could not be read (${describe(error)}); try again later`,
    };
  }
  if (record.refundStatusText !== undefined) {
    return {
      batchNo,
      event: undefined,
      record,
      reason: redactText(
        `refund ${batchNo} has the unrecognised status ${record.refundStatusText}; still open`,
      ),
    };
  }
  const event = refundEventFromRecord(record);
  return {
    batchNo,
    event,
    record,
    reason: event
      ? `the gateway recorded refund ${batchNo} as ${record.refundStatus}`
      : `refund ${batchNo} is still pending at the gateway`,
  };
}
