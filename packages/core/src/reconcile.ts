/**
 * Reconciliation of payment attempts (docs/gateway-protocol.md#reconciliation): settles an attempt whose
 * answer and notifications were lost by reading the gateway's own record of it. Nothing is sent that
 * moves money; the outcome produced is the one a callback would have given, and adapters record it with
 * `recordOutcome` (same decision, amount check and monotonic merge as callbacks). Refunds:
 * reconcile-refund.ts.
 */

import type { CheckoutFlow } from './checkout-flow.js';
import type { GatewayClient } from './client.js';
import { GatewayBadRequestError } from './errors.js';
import type { RecordOptions } from './inbound/attempt-store.js';
import type { StoredAttempt } from './inbound/decision.js';
import { sameOrderAmount } from './money.js';
import {
  isFinalOutcome,
  outcomeFromOrderFields,
  type PaymentOutcome,
  type PaymentOutcomeStatus,
} from './outcome.js';
import { ALREADY_PAID_REASON, DUPLICATE_ORDER_CODE } from './payment-flow.js';
import { redactedErrorText, redactText } from './redact.js';
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
  /**
   * What the gateway has said of the attempt so far (its answer, a return or a notice); undefined:
   * sent, nothing heard. It decides what the gateway's having no record of the attempt means.
   */
  stored?: StoredAnswer | undefined;
  /**
   * How the attempt pays (default: not said). A page flow whose answer never reached the shopper
   * (stored unknown, or nothing) has a page nobody was shown: pending there past `pendingAfterMs`, it
   * expires as a redirect's does. A card charge still pending then is flagged for a person.
   */
  flow?: CheckoutFlow | undefined;
}

/** The parts of a stored outcome the reconciliation reads. */
export interface StoredAnswer {
  status: PaymentOutcomeStatus;
  /** The trade id the gateway gave the attempt. */
  tradeNo?: string | null | undefined;
  /** The gateway's answer code, when it answered with one (e.g. I0061, already paid). */
  code?: string | undefined;
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
  /**
   * Only a person can settle it (the gateway acknowledged the payment but lists no record of it): the
   * attempt is left open, and adapters say so as a warning on every run until someone does.
   */
  attention?: true;
  /**
   * For a failure derived from what the attempt had stored when it was read (NO_GATEWAY_RECORD,
   * PAGE_EXPIRED): that stored answer. The read is older than the gateway's answer, so the failure is
   * recorded only while the attempt still is as judged (reconciliationRecordOptions).
   */
  judgedOn?: StoredAnswer;
}

/** Failure reason of a gateway page left unpaid past `pendingAfterMs` (the gateway's pages expire sooner). */
export const PAGE_EXPIRED = "the gateway's page expired unpaid";

/** Failure reason of an attempt the gateway never recorded. */
export const NO_GATEWAY_RECORD = 'the gateway has no record of this payment';

/** Why a failure judged on an earlier read was not recorded (recordOutcome's `held-back`). */
export const ANSWERED_WHILE_ASKED =
  'the attempt was answered while the gateway was asked: left as it is, judged again on the next run';

export const DEFAULT_PENDING_AFTER_MS = 30 * 60 * 1000;
export const DEFAULT_RECONCILE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Room for one orderNo's trades: one attempt is one orderNo, so a page this size holds them all. */
const PAGE_SIZE = 100;

/** `YYYY-MM-DDTHH:mm:ss` in UTC, the form the record queries take. */
export function recordQueryTime(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 19);
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
 * Whether the gateway said it holds the attempt: a pending answer, a trade id, or "already paid". Its
 * listing no record of such an attempt later cannot mean nothing was charged. A redirect is left out:
 * its page is the gateway's, the shopper may never have paid there, and a redirect holds nothing
 * open (a late payment on its page still outranks the failure, docs/payment-states.md).
 */
export function gatewayAcknowledged(stored: StoredAnswer | undefined): boolean {
  if (!stored || stored.status === 'redirect') return false;
  return stored.status === 'pending' || Boolean(stored.tradeNo) || stored.code === DUPLICATE_ORDER_CODE;
}

/**
 * What a stored outcome says for the no-record rule; undefined (sent, nothing heard): unknown. An
 * "already paid" answer is known by its code, or by its reason where a store kept only the text (the
 * code was added later).
 */
export function storedAnswerOf(outcome: PaymentOutcome | undefined): StoredAnswer {
  if (!outcome) return { status: 'unknown' };
  const code =
    outcome.status === 'failed' || outcome.status === 'unknown'
      ? (outcome.code ?? (outcome.reason === ALREADY_PAID_REASON ? DUPLICATE_ORDER_CODE : undefined))
      : undefined;
  return { status: outcome.status, tradeNo: outcome.tradeNo, code };
}

/** The gateway's record of the trade it gave the attempt (`GET /orderInfo/{tradeNo}`); none: []. */
async function tradeOfAttempt(
  client: Pick<GatewayClient, 'transactions'>,
  orderNo: string,
  tradeNo: string,
  options: ReconcileAttemptOptions,
): Promise<TransactionRecord[]> {
  try {
    const record = await client.transactions.retrieve(
      tradeNo,
      options.signal ? { signal: options.signal } : undefined,
    );
    if (record.orderNo !== orderNo) {
      throw new Error(`trade ${tradeNo} is recorded for another orderNo`);
    }
    return [record];
  } catch (error) {
    // The gateway refused the query as asked (no such trade): no record. Anything else: unreadable.
    if (error instanceof GatewayBadRequestError) return [];
    throw error;
  }
}

/** What the gateway's having no record of the attempt means, `ageMs` after it was sent. */
function withoutRecord(
  attempt: ReconcileAttemptInput,
  ageMs: number,
  pendingAfterMs: number,
): AttemptReconciliation {
  const { orderNo } = attempt;
  if (ageMs <= pendingAfterMs) {
    return {
      orderNo,
      outcome: undefined,
      reason: `${NO_GATEWAY_RECORD} yet; it was sent ${Math.max(0, Math.round(ageMs / 1000))} s ago, so it is still pending`,
    };
  }
  const minutes = Math.round(ageMs / 60_000);
  if (gatewayAcknowledged(attempt.stored)) {
    const said = attempt.stored?.tradeNo
      ? `as trade ${attempt.stored.tradeNo}`
      : `(${attempt.stored?.status})`;
    return {
      orderNo,
      outcome: undefined,
      attention: true,
      reason: `the gateway acknowledged this payment ${said} but has no record of it ${minutes} minutes after it was sent: left open so it is not paid twice; look it up in the merchant portal`,
    };
  }
  return {
    orderNo,
    outcome: { orderNo, status: 'failed', reason: NO_GATEWAY_RECORD, code: 'NO_GATEWAY_RECORD' },
    reason: `${NO_GATEWAY_RECORD} ${minutes} minutes after it was sent: nothing was charged`,
    judgedOn: attempt.stored ?? { status: 'unknown' },
  };
}

/**
 * Asks the gateway for its record of one attempt (`listTransactions` by orderNo, around `sentAt`; then
 * the trade it gave the attempt by tradeNo, when the list has none) and gives the outcome a callback
 * would have given. No record once the attempt is older than `pendingAfterMs`: `failed` ("the gateway
 * has no record of this payment", nothing was charged), unless the gateway had acknowledged it
 * (gatewayAcknowledged): then nothing, flagged for a person. Younger: nothing yet. A query that fails,
 * or a list of other orders' trades, gives nothing, with the reason. A redirect takes only a final
 * outcome. The amount is not judged here: recordOutcome compares it with the attempt, as for a callback.
 * A failure judged on `attempt.stored` names it as `judgedOn`: record it with the options of
 * reconciliationRecordOptions, so it applies only to an attempt still as judged.
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
    const { list, page } = await client.transactions.list(
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
    if (records.length === 0 && (list.length > 0 || page.total > 0)) {
      // Other orders' trades, or more than were listed: the orderNo filter was not applied, so this
      // answer cannot show that the attempt is missing.
      return {
        orderNo,
        outcome: undefined,
        reason: `the gateway's answer listed ${Math.max(list.length, page.total)} trade(s) of other orders, not this one; it proves nothing, left as it is`,
      };
    }
    const { tradeNo } = attempt.stored ?? {};
    if (records.length === 0 && tradeNo) records = await tradeOfAttempt(client, orderNo, tradeNo, options);
  } catch (error) {
    return {
      orderNo,
      outcome: undefined,
      reason: `the gateway's records could not be read (${redactedErrorText(error)}); try again later`,
    };
  }
  const ageMs = now - sentAt;
  const minutes = Math.round(ageMs / 60_000);
  const trade = decisiveTrade(records);
  if (!trade) return withoutRecord(attempt, ageMs, pendingAfterMs);
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
  if (outcome.status === 'unknown' && outcome.code === DUPLICATE_ORDER_CODE) {
    // "Duplicate order" (docs/payment-states.md): another trade of this orderNo may have taken the money.
    return {
      orderNo,
      outcome,
      attention: true,
      reason: `the gateway recorded trade ${trade.tradeNo} as already paid (I0061): left open so it is not paid twice; look it up in the merchant portal`,
    };
  }
  const pageNeverShown =
    (attempt.flow === 'hosted' || attempt.flow === 'local') &&
    (attempt.stored === undefined ||
      (attempt.stored.status === 'unknown' && attempt.stored.code !== DUPLICATE_ORDER_CODE));
  if ((attempt.stored?.status === 'redirect' || pageNeverShown) && !isFinalOutcome(outcome)) {
    // The gateway lists its page as pending while the shopper is on it, and after they left it. A page
    // whose answer was lost was never shown to anyone: nothing will be paid there either.
    if (ageMs <= pendingAfterMs) {
      return {
        orderNo,
        outcome: undefined,
        reason: `the gateway recorded trade ${trade.tradeNo} as ${trade.tradeStatus}: the shopper has not paid on its page (yet)`,
      };
    }
    // Its pages expire sooner: nothing will be paid there. Failed, so it is not asked about again; a
    // payment made there after all still outranks the failure when it is reported.
    return {
      orderNo,
      outcome: {
        orderNo,
        status: 'failed',
        reason: PAGE_EXPIRED,
        code: 'PAGE_EXPIRED',
        tradeNo: trade.tradeNo,
      },
      reason: `the gateway still lists trade ${trade.tradeNo} as ${trade.tradeStatus} ${minutes} minutes after ${
        pageNeverShown
          ? 'its page was asked for, and the answer naming the page never arrived'
          : 'the shopper was sent to its page'
      }: ${PAGE_EXPIRED}`,
      judgedOn: attempt.stored ?? { status: 'unknown' },
    };
  }
  if (attempt.flow === 'card' && !isFinalOutcome(outcome) && ageMs > pendingAfterMs) {
    // A card charge settles within minutes; one still pending is recorded (it is the gateway's word)
    // and said on every run until a person looks it up.
    return {
      orderNo,
      outcome,
      attention: true,
      reason: `the gateway still lists trade ${trade.tradeNo} as ${trade.tradeStatus} ${minutes} minutes after the card charge was sent: left open so it is not paid twice; look it up in the merchant portal`,
    };
  }
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

/**
 * Whether a failure the reconciliation derived from the attempt's stored answer (`judgedOn`) still
 * applies to the attempt as it is now (`current`, read under the exclusive section). The attempt was
 * read before the gateway was asked, and an answer recorded meanwhile (a late `pending` callback with
 * its trade id) means the gateway holds it: its empty list then no longer shows that nothing was
 * charged, nor its pending trade that the page went unpaid.
 */
export function stillAsJudged(found: AttemptReconciliation, current: StoredAnswer): boolean {
  const { judgedOn, outcome } = found;
  if (!judgedOn) return true;
  if (outcome?.status === 'failed' && outcome.code === 'PAGE_EXPIRED') {
    // Still the unanswered page it was judged on (a redirect, or a page whose answer was lost) naming
    // no trade but the page's.
    return (
      current.status === judgedOn.status &&
      (current.status === 'redirect' || current.status === 'unknown') &&
      (!current.tradeNo || current.tradeNo === judgedOn.tradeNo || current.tradeNo === outcome.tradeNo)
    );
  }
  return !gatewayAcknowledged(current);
}

/**
 * The recordOutcome options for a reconciliation's outcome: a failure judged on the attempt's stored
 * answer moves the attempt only while it is still as judged (stillAsJudged), checked under the
 * exclusive section; otherwise the decision is `held-back` and the next run judges again.
 * `storedAnswerOfAttempt` reads the platform's attempt the way the reconciliation's input was read.
 */
export function reconciliationRecordOptions<A extends StoredAttempt>(
  found: AttemptReconciliation,
  storedAnswerOfAttempt: (attempt: A) => StoredAnswer,
): RecordOptions<A> {
  if (!found.judgedOn) return {};
  return { onlyWhile: (attempt) => stillAsJudged(found, storedAnswerOfAttempt(attempt)) };
}
