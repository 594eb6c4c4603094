/**
 * The merchant's way out of an attempt the reconciliation leaves open for a person (docs/inbound.md#closing-an-attempt):
 * the gateway acknowledged it but lists no record of it, so no rule may decide that nothing was
 * charged. Once someone has looked the payment up in the merchant portal and found no charge, they
 * close it: it is recorded failed like any outcome (under the store's exclusive section), which frees
 * its order or cart; a payment the gateway reports later still outranks the failure.
 */
import { isFinalOutcome } from '../outcome.js';
import { redactText } from '../redact.js';
import { type AttemptStore, recordOutcome } from './attempt-store.js';
import type { InboundDecision, StoredAttempt } from './decision.js';

/** Failure code of an attempt closed by the merchant. */
export const CLOSED_BY_MERCHANT = 'CLOSED_BY_MERCHANT';

/**
 * The reason the closed attempt is recorded with: the shopper can read it (Vendure's payment message,
 * Medusa's session data), so it carries no merchant words; the note goes to the result for the admin.
 */
export const CLOSED_BY_MERCHANT_REASON = 'closed by the merchant';

/** The longest note kept with a closed attempt. */
export const CLOSE_NOTE_MAX_LENGTH = 200;

export type CloseAttemptResult<A extends StoredAttempt> =
  /**
   * Recorded failed with CLOSED_BY_MERCHANT_REASON; `reason` ("closed by the merchant: <note>",
   * redacted) is for the admin's answer and the store's private log or note.
   */
  | { kind: 'closed'; decision: InboundDecision<A>; reason: string }
  /**
   * Nothing changed: no such attempt, it already has a final outcome (named), or the gateway answered
   * between the read that judged it and the record.
   */
  | { kind: 'refused'; reason: string };

/**
 * Closes an attempt that has no final outcome yet, recording `failed` with the person's note. A
 * succeeded or failed attempt is refused (a success is never replaced; a failure is already closed),
 * and so is a gateway page.
 */
export async function closeOpenAttempt<A extends StoredAttempt>(
  store: AttemptStore<A>,
  orderNo: string,
  note: string,
): Promise<CloseAttemptResult<A>> {
  const attempt = await store.find(orderNo);
  if (!attempt) return { kind: 'refused', reason: `no payment attempt ${orderNo}` };
  if (isFinalOutcome(attempt.outcome)) {
    return { kind: 'refused', reason: `payment attempt ${orderNo} is already ${attempt.outcome?.status}` };
  }
  if (attempt.outcome?.status === 'redirect') {
    // The shopper may still be paying on the gateway's page, which the portal does not show yet; the
    // reconciliation ends the page itself once it has expired (PAGE_EXPIRED).
    return {
      kind: 'refused',
      reason: `payment attempt ${orderNo} is a gateway page: the reconciliation ends it once the page expires`,
    };
  }
  const reason = redactText(`${CLOSED_BY_MERCHANT_REASON}: ${note.trim().slice(0, CLOSE_NOTE_MAX_LENGTH)}`);
  const judged = attempt.outcome?.status;
  const decision = await recordOutcome(
    store,
    { orderNo, status: 'failed', reason: CLOSED_BY_MERCHANT_REASON, code: CLOSED_BY_MERCHANT },
    // Judged on the plain read above: a `pending` callback recorded since then says the trade exists,
    // and `failed` would outrank it and free the order or cart for a second payment.
    { alerts: false, onlyWhile: (found) => found.outcome?.status === judged },
  );
  if (decision.kind === 'held-back') {
    return {
      kind: 'refused',
      reason: `payment attempt ${orderNo} changed meanwhile: the gateway answered after it was read (now ${decision.attempt.outcome?.status ?? 'none'}); look it up again`,
    };
  }
  // A success recorded meanwhile wins (the decision is then stale): say so rather than "closed".
  if (decision.kind !== 'changed') {
    return { kind: 'refused', reason: `payment attempt ${orderNo} changed meanwhile (${decision.kind})` };
  }
  return { kind: 'closed', decision, reason };
}
