/**
 * PaymentOutcome: the one platform-neutral view of a payment attempt, produced from a gateway result,
 * a callback or a return, and merged monotonically (docs/payment-states.md#monotonic-merge: state never moves backwards).
 */
import { redactText } from './redact.js';
import { type CallbackEvent, isKnownCallbackEventType } from './schemas/callbacks.js';
import type { ReturnFields } from './schemas/returns.js';

interface OutcomeBase {
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
    maskCardNo: nonEmpty(fields.maskCardNo),
    amount: nonEmpty(fields.orderAmount),
    currency: nonEmpty(fields.orderCurrency),
  };
  const status = fields.orderStatus?.toLowerCase();
  if (status === 'success') return { ...base, status: 'succeeded' };
  if (status === 'fail')
    return { ...base, status: 'failed', reason: base.orderInfo ?? 'The payment was declined' };
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

/** Payment outcome of a verified callback; undefined for events that are not about the payment's status or of a type core does not know. */
export function outcomeFromCallback(event: CallbackEvent): PaymentOutcome | undefined {
  // A type core does not know (a future `transaction.*` too) says nothing it can rely on about the payment.
  if (!isKnownCallbackEventType(event.type)) return undefined;
  if (!/^(transaction|pre-authorized)\./.test(event.type) || event.type === 'pre-authorized.void')
    return undefined;
  const byType = event.type.endsWith('.success') || event.type.endsWith('.captured') ? 'success' : undefined;
  const status =
    event.data.orderStatus ??
    byType ??
    (event.type === 'transaction.fail'
      ? 'fail'
      : event.type === 'transaction.pending'
        ? 'pending'
        : undefined);
  const outcome = outcomeFromOrderFields({ ...event.data, orderStatus: status, redirectUrl: undefined });
  return outcome.status === 'unknown' ? undefined : outcome;
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
