/**
 * What a verified gateway outcome does to a stored payment attempt: the one decision both platforms
 * take for callbacks, returns and synchronous answers (docs/inbound.md). Pure, so every rule reads in
 * one place and is tested without a platform.
 */
import { sameOrderAmount } from '../money.js';
import { mergeOutcome, type PaymentOutcome } from '../outcome.js';

/** What the platform stored when it sent the attempt: what the gateway's answer must be about. */
export interface StoredAttempt {
  orderNo: string;
  /** The exact orderAmount sent to the gateway. */
  orderAmount: string;
  currency: string;
  /** The outcome recorded so far (undefined: sent, nothing heard yet). */
  outcome: PaymentOutcome | undefined;
}

export type InboundDecision<A extends StoredAttempt = StoredAttempt> =
  /** No attempt with this orderNo belongs to the account that verified the outcome. */
  | { kind: 'unknown-attempt'; incoming: PaymentOutcome }
  /** The outcome is about another amount or currency than the attempt asked for: nothing changes. */
  | { kind: 'mismatch'; attempt: A; incoming: PaymentOutcome; message: string }
  /** The same status again (a retry or the return after the callback): nothing changes. */
  | { kind: 'duplicate'; attempt: A; incoming: PaymentOutcome; current: PaymentOutcome }
  /** Behind what is stored (a fail after a success, a pending after a failure): nothing changes. */
  | { kind: 'stale'; attempt: A; incoming: PaymentOutcome; current: PaymentOutcome }
  /** Moves the attempt forward to `next`. */
  | { kind: 'changed'; attempt: A; incoming: PaymentOutcome; next: PaymentOutcome }
  /**
   * Would move the attempt, but the outcome may only confirm what is stored (RecordOptions.changes:
   * a return the gateway did not confirm), or was judged on a read the attempt no longer matches
   * (RecordOptions.onlyWhile: a reconciliation's failure, a merchant's close): nothing changes.
   */
  | { kind: 'held-back'; attempt: A; incoming: PaymentOutcome; next: PaymentOutcome };

/**
 * Why an outcome's amount cannot be trusted for this attempt, or undefined when it can. A success must
 * name the amount and currency it took; any other outcome that names them must name the attempt's.
 */
export function amountMismatch(outcome: PaymentOutcome, attempt: StoredAttempt): string | undefined {
  const { amount, currency } = outcome;
  if (amount === undefined && currency === undefined && outcome.status !== 'succeeded') return undefined;
  const expectedCurrency = attempt.currency.toUpperCase();
  const matches =
    amount !== undefined &&
    currency !== undefined &&
    currency.toUpperCase() === expectedCurrency &&
    sameOrderAmount(amount, attempt.orderAmount, expectedCurrency);
  if (matches) return undefined;
  return `Amount mismatch: the gateway reported ${amount ?? '?'} ${currency ?? '?'} but ${attempt.orderAmount} ${expectedCurrency} was sent`;
}

export function decideInbound<A extends StoredAttempt>(
  attempt: A | undefined,
  incoming: PaymentOutcome,
): InboundDecision<A> {
  if (!attempt) return { kind: 'unknown-attempt', incoming };
  const mismatch = amountMismatch(incoming, attempt);
  if (mismatch) return { kind: 'mismatch', attempt, incoming, message: mismatch };
  const { next, changed } = mergeOutcome(attempt.outcome, incoming);
  if (changed) return { kind: 'changed', attempt, incoming, next };
  const kind = next.status === incoming.status ? 'duplicate' : 'stale';
  return { kind, attempt, incoming, current: next };
}
