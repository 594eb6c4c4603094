/**
 * One attempt reconciled and recorded, as both adapters' runs do it: the gateway's record is asked
 * (reconcileAttempt) and what it gives is recorded the way a callback is (recordOutcome), a failure
 * judged on the attempt as it was read applying only while the attempt still is as judged
 * (reconciliationRecordOptions). The adapters add how they log and report it.
 */
import type { GatewayClient } from './client.js';
import { type AttemptStore, recordOutcome } from './inbound/attempt-store.js';
import type { InboundDecision, StoredAttempt } from './inbound/decision.js';
import {
  ANSWERED_WHILE_ASKED,
  type AttemptReconciliation,
  type ReconcileAttemptInput,
  type ReconcileAttemptOptions,
  reconcileAttempt,
  reconciliationRecordOptions,
  type StoredAnswer,
} from './reconcile.js';

export interface ReconciledAttempt<A extends StoredAttempt> {
  found: AttemptReconciliation;
  /** What recordOutcome decided; undefined when the record gave nothing to record. */
  decision?: InboundDecision<A>;
  /** The record's reason, and why a failure held back was not recorded. */
  reason: string;
}

export async function reconcileAndRecord<A extends StoredAttempt>(
  client: Pick<GatewayClient, 'transactions'>,
  store: AttemptStore<A>,
  input: ReconcileAttemptInput,
  options: ReconcileAttemptOptions,
  storedAnswerOfAttempt: (attempt: A) => StoredAnswer,
  /** Told what the gateway's record says before anything is recorded (an attention warning is said even if recording then fails). */
  beforeRecord?: (found: AttemptReconciliation) => void,
): Promise<ReconciledAttempt<A>> {
  const found = await reconcileAttempt(client, input, options);
  beforeRecord?.(found);
  if (!found.outcome) return { found, reason: found.reason };
  const decision = await recordOutcome(
    store,
    found.outcome,
    reconciliationRecordOptions(found, storedAnswerOfAttempt),
  );
  const reason = decision.kind === 'held-back' ? `${found.reason}; ${ANSWERED_WHILE_ASKED}` : found.reason;
  return { found, decision, reason };
}
