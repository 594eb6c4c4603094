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
 * How old an attempt must be before a person may close it (docs/inbound.md#closing-an-attempt): a charge
 * sent moments ago may still be answered, called back or found by the reconciliation, and a gateway page
 * may still be paid on until it expires; closing it would free its order or cart for a second charge
 * while the first may still take money.
 */
export interface CloseAge<A extends StoredAttempt> {
  /** Milliseconds since the attempt's charge was sent, on the clock its platform judges ages by; undefined when nothing was sent. */
  sentMsAgo(attempt: A): number | undefined;
  /**
   * The youngest attempt that may be closed: the adapters pass the reconciliation's no-record window
   * (no page can still be paid after it) plus its wait (a run has read the gateway since).
   */
  closeAfterMs: number;
}

/**
 * Closes an attempt that has no final outcome yet, recording `failed` with the person's note. A
 * succeeded or failed attempt is refused (a success is never replaced; a failure is already closed),
 * and so is a gateway page and an attempt younger than `age.closeAfterMs`.
 */
export async function closeOpenAttempt<A extends StoredAttempt>(
  store: AttemptStore<A>,
  orderNo: string,
  note: string,
  age: CloseAge<A>,
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
  const tooYoung = tooYoungToClose(attempt, age);
  if (tooYoung) return { kind: 'refused', reason: tooYoung };
  const reason = redactText(`${CLOSED_BY_MERCHANT_REASON}: ${note.trim().slice(0, CLOSE_NOTE_MAX_LENGTH)}`);
  const judged = attempt.outcome?.status;
  let youngByThen: string | undefined;
  const decision = await recordOutcome(
    store,
    { orderNo, status: 'failed', reason: CLOSED_BY_MERCHANT_REASON, code: CLOSED_BY_MERCHANT },
    // Judged on the plain read above: a `pending` callback recorded since then says the trade exists,
    // and `failed` would outrank it and free the order or cart for a second payment. The age is judged
    // again too: a charge sent meanwhile (read as never sent) is as young as any.
    {
      alerts: false,
      onlyWhile: (found) => {
        youngByThen = tooYoungToClose(found, age);
        return found.outcome?.status === judged && !youngByThen;
      },
    },
  );
  if (decision.kind === 'held-back') {
    return {
      kind: 'refused',
      reason:
        youngByThen ??
        `payment attempt ${orderNo} changed meanwhile: the gateway answered after it was read (now ${decision.attempt.outcome?.status ?? 'none'}); look it up again`,
    };
  }
  // A success recorded meanwhile wins (the decision is then stale): say so rather than "closed".
  if (decision.kind !== 'changed') {
    return { kind: 'refused', reason: `payment attempt ${orderNo} changed meanwhile (${decision.kind})` };
  }
  return { kind: 'closed', decision, reason };
}

/** Why `attempt` may not be closed yet, or undefined when it is old enough (or was never sent). */
function tooYoungToClose<A extends StoredAttempt>(attempt: A, age: CloseAge<A>): string | undefined {
  const sentMsAgo = age.sentMsAgo(attempt);
  if (sentMsAgo === undefined || sentMsAgo >= age.closeAfterMs) return undefined;
  const waitSeconds = Math.ceil((age.closeAfterMs - Math.max(0, sentMsAgo)) / 1000);
  return `payment attempt ${attempt.orderNo} was sent ${Math.max(0, Math.floor(sentMsAgo / 1000))} s ago: its answer, the gateway's callbacks or the reconciliation may still settle it; it can be closed in ${waitSeconds} s, if it is still open then`;
}
