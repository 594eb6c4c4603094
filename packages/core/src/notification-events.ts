/**
 * Typed views of the verified notices that are not about a payment's status
 * (docs/callbacks-and-returns.md#refund-and-chargeback-events): the `refund.*` result of a refund
 * made with `client.refunds.create`, and a `chargeback.success` raised on a trade. Adapters read them in
 * their AttemptStore `notice` hook. The gateway's free text (reasons) is redacted as outcome.ts does
 * with orderInfo: adapters store and show it, and a bank text may quote a card.
 */
import { redactText } from './redact.js';
import type { CallbackEvent, CallbackValue } from './schemas/callbacks.js';

/** The result of a refund, from its notification (or from reconcileRefund's query). */
export interface RefundEvent {
  kind: 'refund';
  status: 'succeeded' | 'failed';
  /** The gateway's refund number (the `batchNo` createRefund answered). */
  batchNo?: string | undefined;
  /** The merchant's own refund id sent with createRefund. */
  merTrackNo?: string | undefined;
  tradeNo?: string | undefined;
  orderNo?: string | undefined;
  /** The refunded amount (gateway amount string) and its currency. */
  amount?: string | undefined;
  currency?: string | undefined;
  /** Redacted. For a failed refund, why it failed. */
  reason?: string | undefined;
  /** When the gateway sent the notice (`YYYY-MM-DD HH:mm:ss`, the gateway's clock). */
  noticeDate?: string | undefined;
}

/** A chargeback raised on a trade. */
export interface ChargebackEvent {
  kind: 'chargeback';
  /** The gateway's chargeback number. */
  batchNo?: string | undefined;
  tradeNo?: string | undefined;
  orderNo?: string | undefined;
  /** The disputed amount (gateway amount string) and its currency. */
  amount?: string | undefined;
  currency?: string | undefined;
  /** Redacted; e.g. `D4755-Non-Receipt of Goods or Services`. */
  reason?: string | undefined;
  /** Last day to answer the chargeback. */
  replyDeadline?: string | undefined;
  cpdDate?: string | undefined;
  noticeDate?: string | undefined;
}

/** What a platform keeps of a chargeback on the charged payment. */
export type ChargebackDetails = Omit<ChargebackEvent, 'kind' | 'orderNo'>;

/**
 * A chargeback's identity, for telling a repeated notice from a new one: its batchNo, else what the
 * notice says about it (the same notice sent again says the same).
 */
export function chargebackKey(details: ChargebackDetails): string {
  if (details.batchNo) return details.batchNo;
  return [details.tradeNo, details.amount, details.currency, details.noticeDate, details.reason]
    .map((value) => value ?? '')
    .join('|');
}

export type NoticeEvent = RefundEvent | ChargebackEvent;

function nonEmpty(value: CallbackValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function freeText(value: CallbackValue | undefined): string | undefined {
  const text = nonEmpty(value);
  return text === undefined ? undefined : redactText(text);
}

const REFUND_STATUS: Readonly<Record<string, RefundEvent['status']>> = {
  'refund.success': 'succeeded',
  'refund.fail': 'failed',
};

/** The refund result of a verified `refund.success` / `refund.fail` notification; undefined for any other event. */
export function refundEventOf(event: CallbackEvent): RefundEvent | undefined {
  const status = Object.hasOwn(REFUND_STATUS, event.type) ? REFUND_STATUS[event.type] : undefined;
  if (!status) return undefined;
  const { data } = event;
  return {
    kind: 'refund',
    status,
    batchNo: nonEmpty(data.batchNo),
    merTrackNo: nonEmpty(data.merTrackNo),
    tradeNo: nonEmpty(data.tradeNo),
    orderNo: nonEmpty(data.orderNo),
    amount: nonEmpty(data.amount),
    // A refund is in the trade's currency: the order's currency stands in when `currency` is missing.
    currency: nonEmpty(data.currency) ?? nonEmpty(data.orderCurrency),
    reason: freeText(data.reason),
    noticeDate: nonEmpty(data.noticeDate),
  };
}

/**
 * The chargeback of a verified `chargeback.success` notification; undefined for any other event (a
 * `chargeback.*` type core does not know is not read as a new chargeback).
 */
export function chargebackEventOf(event: CallbackEvent): ChargebackEvent | undefined {
  if (event.type !== 'chargeback.success') return undefined;
  const { data } = event;
  const info = data.chargebackInfo;
  return {
    kind: 'chargeback',
    batchNo: nonEmpty(data.batchNo),
    tradeNo: nonEmpty(data.tradeNo),
    orderNo: nonEmpty(data.orderNo),
    amount: nonEmpty(data.amount),
    currency: nonEmpty(data.currency) ?? nonEmpty(data.orderCurrency),
    reason: freeText(data.reason),
    // Documented inside chargebackInfo; also taken from data itself.
    replyDeadline: nonEmpty(info?.replyDeadline) ?? nonEmpty(data.replyDeadline),
    cpdDate: nonEmpty(info?.cpdDate) ?? nonEmpty(data.cpdDate),
    noticeDate: nonEmpty(data.noticeDate),
  };
}

/** The typed view of a refund or chargeback notice; undefined for any other event. */
export function noticeEventOf(event: CallbackEvent): NoticeEvent | undefined {
  return refundEventOf(event) ?? chargebackEventOf(event);
}
