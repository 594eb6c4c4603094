/**
 * PaymentOutcome: the one platform-neutral view of a payment attempt, produced from a gateway result,
 * a callback or a return, and merged monotonically (docs/payment-states.md#monotonic-merge: state never moves backwards).
 */
import { ALREADY_PAID_REASON, DUPLICATE_ORDER_CODE } from './codes.js';
import { maskedCardNo } from './masked-card.js';
import { redactText } from './redact.js';
import { type CallbackEvent, isKnownCallbackEventType } from './schemas/callbacks.js';
import type { ReturnFields } from './schemas/returns.js';

export interface OutcomeBase {
  orderNo: string;
  tradeNo?: string | undefined;
  orderInfo?: string | undefined;
  maskCardNo?: string | undefined;
  /** Gateway orderAmount and currency the outcome is about, when the gateway told us. */
  amount?: string | undefined;
  currency?: string | undefined;
}

export type PaymentOutcome =
  | (OutcomeBase & { status: 'succeeded' })
  | (OutcomeBase & { status: 'redirect'; redirectUrl: string })
  | (OutcomeBase & { status: 'pending' })
  | (OutcomeBase & { status: 'failed'; reason: string; code?: string | undefined })
  | (OutcomeBase & { status: 'unknown'; reason: string; code?: string | undefined });

export type PaymentOutcomeStatus = PaymentOutcome['status'];

/** How far along a payment is; an outcome only replaces one of strictly lower rank. */
const RANK: Record<PaymentOutcomeStatus, number> = {
  unknown: 0,
  redirect: 1,
  pending: 2,
  failed: 3,
  succeeded: 4,
};

interface OrderFields {
  orderNo?: string | undefined;
  tradeNo?: string | undefined;
  orderStatus?: string | undefined;
  orderInfo?: string | undefined;
  maskCardNo?: string | undefined;
  orderAmount?: string | undefined;
  orderCurrency?: string | undefined;
  redirectUrl?: string | undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** An absolute http(s) address: the only kind a shopper is sent to. */
function isWebAddress(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** An orderInfo that starts with the gateway's "Duplicate Order" code (`I0061:Duplicate Order`, `I0061_…`). */
const ALREADY_PAID_INFO = new RegExp(`^\\s*${DUPLICATE_ORDER_CODE}(?![0-9])`, 'i');

/**
 * The outcome of "this orderNo was already paid" (I0061), whether the gateway says it as the answer's
 * code or as a `fail` whose orderInfo starts with it: unknown, never a decline that frees the order.
 * The paid charge's callback, return or the reconciliation settles it.
 */
export function alreadyPaid(base: OutcomeBase): PaymentOutcome {
  return { ...base, status: 'unknown', reason: ALREADY_PAID_REASON, code: DUPLICATE_ORDER_CODE };
}

/**
 * Reads the fields every gateway answer shares (charge result, pre-order, callback data, return).
 * Adapters store outcomes as platform data, so the gateway's free text (orderInfo, which `reason`
 * repeats) is redacted: a bank message may quote the card. Not the client's hot path (~40 ns).
 */
export function outcomeFromOrderFields(fields: OrderFields, fallbackOrderNo = ''): PaymentOutcome {
  const orderInfo = nonEmpty(fields.orderInfo);
  const base: OutcomeBase = {
    orderNo: nonEmpty(fields.orderNo) ?? fallbackOrderNo,
    tradeNo: nonEmpty(fields.tradeNo),
    orderInfo: orderInfo === undefined ? undefined : redactText(orderInfo),
    // Stored and shown to the shopper: a whole card number sent here is dropped, never kept.
    maskCardNo: maskedCardNo(fields.maskCardNo),
    amount: nonEmpty(fields.orderAmount),
    currency: nonEmpty(fields.orderCurrency),
  };
  const status = fields.orderStatus?.trim().toLowerCase();
  if (status === 'success') return { ...base, status: 'succeeded' };
  if (status === 'fail') {
    // "Duplicate Order": this orderNo was already paid, so not a decline (docs/payment-states.md#outcomes).
    if (orderInfo !== undefined && ALREADY_PAID_INFO.test(orderInfo)) return alreadyPaid(base);
    return { ...base, status: 'failed', reason: base.orderInfo ?? 'The payment was declined' };
  }
  const redirectUrl = nonEmpty(fields.redirectUrl);
  if (redirectUrl && isWebAddress(redirectUrl)) return { ...base, status: 'redirect', redirectUrl };
  if (redirectUrl) {
    // The storefront sends the shopper there: a `javascript:` or `data:` address would run in its page.
    return {
      ...base,
      status: 'unknown',
      reason: 'the gateway sent the shopper to an address that is not http(s)',
    };
  }
  if (status === 'pending') return { ...base, status: 'pending' };
  return {
    ...base,
    status: 'unknown',
    reason: redactText(`unrecognised orderStatus ${fields.orderStatus ?? '(none)'}`),
  };
}

/**
 * Payment outcome of a verified callback; undefined for events that are not about the payment's status
 * (a `transaction.clear` without orderStatus too) or of a type core does not know. An orderStatus that
 * is present but not one of the three (a legacy numeric `1`, say: not V2022-03) gives an `unknown`
 * outcome, never a failure and never a plain notice: it is recorded as unknown where nothing was heard
 * yet and the gateway's record settles it (docs/callbacks-and-returns.md#event-types).
 */
export function outcomeFromCallback(event: CallbackEvent): PaymentOutcome | undefined {
  // A type core does not know (a future `transaction.*` too) says nothing it can rely on about the payment.
  if (!isKnownCallbackEventType(event.type)) return undefined;
  if (!/^(transaction|pre-authorized)\./.test(event.type) || event.type === 'pre-authorized.void')
    return undefined;
  const byType = event.type.endsWith('.success') || event.type.endsWith('.captured') ? 'success' : undefined;
  const status =
    nonEmpty(event.data.orderStatus?.trim()) ??
    byType ??
    (event.type === 'transaction.fail'
      ? 'fail'
      : event.type === 'transaction.pending'
        ? 'pending'
        : undefined);
  if (status === undefined) return undefined;
  return outcomeFromOrderFields({ ...event.data, orderStatus: status, redirectUrl: undefined });
}

/** Payment outcome of a verified return. */
export function outcomeFromReturn(fields: ReturnFields): PaymentOutcome {
  return outcomeFromOrderFields({ ...fields, orderInfo: fields.orderInfo || fields.message });
}

/**
 * Monotonic merge: a success is never replaced, a failure only by a success (money was taken after all),
 * and an equal-rank outcome (a duplicate) changes nothing.
 */
export function mergeOutcome(
  current: PaymentOutcome | undefined,
  incoming: PaymentOutcome,
): { next: PaymentOutcome; changed: boolean } {
  if (!current) return { next: incoming, changed: true };
  if (RANK[incoming.status] > RANK[current.status]) return { next: incoming, changed: true };
  return { next: current, changed: false };
}

export function isFinalOutcome(outcome: PaymentOutcome | undefined): boolean {
  return outcome?.status === 'succeeded' || outcome?.status === 'failed';
}
