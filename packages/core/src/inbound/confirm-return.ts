/**
 * A return is confirmed by the gateway before it changes anything (docs/inbound.md#returns-are-confirmed).
 * Its signature covers its fields joined without separators (docs/signing.md), so the shopper, who holds
 * the URL, can move characters from the end of `orderInfo` to the start of `orderNo` or back and keep a
 * valid signature. Where one store's orderNos can end one another (order codes of different lengths:
 * `57-1` and `157-1`), the return of a paid order would then name another order. The gateway's own
 * record of the trade (GET /orderInfo/{tradeNo}) names the orderNo it is for, so a return that would move
 * an attempt is recorded as that record says, or not at all.
 */
import { maskedCardNo } from '../masked-card.js';
import type { PaymentOutcome } from '../outcome.js';
import { outcomeFromTransaction } from '../reconcile.js';
import { redactText } from '../redact.js';
import type { TransactionRecord } from '../schemas/transactions.js';
import type { AttemptStore } from './attempt-store.js';
import { decideInbound, type StoredAttempt } from './decision.js';

/** How long the shopper's return waits for the gateway's record before it records nothing. */
export const RETURN_CONFIRM_TIMEOUT_MS = 10_000;

export type ConfirmedReturn<A extends StoredAttempt> =
  /**
   * Changes nothing at the first read (a duplicate, stale or mismatched outcome, no attempt): recorded
   * as it is, but only to confirm (RecordOptions.changes false), since the attempt may move meanwhile.
   */
  | { kind: 'as-is'; outcome: PaymentOutcome }
  /** The gateway's record of the trade, about this orderNo: recorded instead of the return's fields. */
  | { kind: 'confirmed'; outcome: PaymentOutcome }
  /**
   * The gateway could not be asked in time, has no record of the trade (yet), or records a status core
   * does not know: nothing recorded now; the callback or the reconciliation records the payment.
   */
  | { kind: 'unconfirmed'; attempt: A; reason: string }
  /** The gateway has the trade for another orderNo: refused like a bad signature. */
  | { kind: 'forged'; reason: string };

export async function confirmReturn<A extends StoredAttempt>(
  store: AttemptStore<A>,
  outcome: PaymentOutcome,
  tradeRecord: (tradeNo: string, signal: AbortSignal) => Promise<TransactionRecord>,
): Promise<ConfirmedReturn<A>> {
  const decided = decideInbound(await store.find(outcome.orderNo), outcome);
  if (decided.kind !== 'changed') return { kind: 'as-is', outcome };
  const { attempt } = decided;
  const { tradeNo } = outcome;
  if (!tradeNo) return { kind: 'unconfirmed', attempt, reason: 'the return names no trade to confirm' };
  let record: TransactionRecord;
  try {
    record = await tradeRecord(tradeNo, AbortSignal.timeout(RETURN_CONFIRM_TIMEOUT_MS));
  } catch (error) {
    // No such trade (yet) included: nothing is recorded either way, and the shopper is not turned away.
    const why = error instanceof Error ? error.message : String(error);
    return {
      kind: 'unconfirmed',
      attempt,
      reason: redactText(`the gateway's record of trade ${tradeNo}: ${why}`),
    };
  }
  if (record.orderNo !== outcome.orderNo) {
    return {
      kind: 'forged',
      reason: redactText(
        `trade ${tradeNo} is the gateway's for orderNo ${record.orderNo}, not ${outcome.orderNo}`,
      ),
    };
  }
  if (record.tradeStatusText !== undefined) {
    return {
      kind: 'unconfirmed',
      attempt,
      reason: redactText(`the gateway records trade ${tradeNo} as ${record.tradeStatusText}`),
    };
  }
  const confirmed = outcomeFromTransaction(record);
  // The record lists no card; the return's masked one is kept for the merchant, in its masked shape only.
  const masked = maskedCardNo(outcome.maskCardNo);
  return {
    kind: 'confirmed',
    outcome: confirmed.maskCardNo || !masked ? confirmed : { ...confirmed, maskCardNo: masked },
  };
}
