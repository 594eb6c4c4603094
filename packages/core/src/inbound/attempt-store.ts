/**
 * The storage an adapter gives core's inbound path: find an attempt by orderNo, save its next state,
 * and tell the merchant what needs a person. Core decides; the adapter only stores and translates
 * (docs/inbound.md).
 */
import { isFinalOutcome, type PaymentOutcome } from '../outcome.js';
import type { CallbackEvent } from '../schemas/callbacks.js';
import { decideInbound, type InboundDecision, type StoredAttempt } from './decision.js';

/** Something only a person can settle; adapters make it loud (error log plus the admin's view). */
export type MerchantAlert =
  /** The gateway took money that no order or cart received. */
  | { kind: 'paid-not-applied'; outcome: PaymentOutcome; reason: string }
  /** A signed outcome about another amount or currency than the attempt's. */
  | { kind: 'amount-mismatch'; attempt: StoredAttempt; outcome: PaymentOutcome; message: string };

/**
 * Thrown by a store's `save` when the outcome cannot be recorded yet but will be (another payment of
 * the order is answering): nothing is written, the callback is answered as failed so the gateway
 * delivers it again, the reconciliation finds it too, and a return sends the shopper on with the
 * attempt as it stands.
 */
export class RecordLaterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordLaterError';
  }
}

export interface AttemptStore<A extends StoredAttempt = StoredAttempt> {
  /**
   * Runs `work` so that no other writer of this orderNo runs at the same time, on any instance (the
   * platform's lock and/or database transaction). `find` and `save` are called inside it.
   */
  exclusive<T>(orderNo: string, work: () => Promise<T>): Promise<T>;
  find(orderNo: string): Promise<A | undefined>;
  /**
   * Stores `next` for the attempt (and what the platform does with it inside the same transaction).
   * Returns false when another writer changed the attempt since `find`: core then decides again.
   */
  save(attempt: A, next: PaymentOutcome): Promise<boolean>;
  /**
   * True when a final outcome, once stored, is never overwritten (e.g. versioned rows). Core may then
   * decide an outcome that changes nothing for a final attempt from a plain read, without `exclusive`.
   */
  readonly finalOutcomesStay?: boolean;
  /**
   * For a store without `finalOutcomesStay`: true when this attempt's final outcome can no longer be
   * overwritten (e.g. the platform finished with it for good). Core then answers it the same way.
   */
  outcomeStays?(attempt: A): boolean;
  /** Runs after `exclusive` when the attempt changed (work that takes the platform's own locks). */
  afterChange?(attempt: A, next: PaymentOutcome): Promise<void>;
  /**
   * Runs after a decision that changed nothing (a duplicate or stale outcome): the place to finish
   * platform work that an earlier recording of `current` could not (e.g. an order not yet created).
   */
  afterUnchanged?(attempt: A, current: PaymentOutcome): Promise<void>;
  alert(alert: MerchantAlert): Promise<void>;
  /**
   * Gateway notices that are not about the payment's status (refund, chargeback; read them with
   * refundEventOf / chargebackEventOf), and events of a type core does not know. A throw answers the
   * gateway 500, so it delivers the notice again.
   */
  notice?(event: CallbackEvent, attempt: A | undefined): Promise<void>;
}

/** How many times a decision is taken again when a concurrent writer changed the attempt first. */
const SAVE_TRIES = 3;

export interface RecordOptions<A extends StoredAttempt = StoredAttempt> {
  /**
   * Whether an outcome for no attempt, or about another amount, alerts the merchant (default yes). A
   * return does not (docs/inbound.md): its signature has no time, and the shopper keeps the URL, so a
   * return could be replayed at will, at any method, to flood the merchant with alerts that ask for a
   * refund. The gateway's callback (signed, within 10 minutes) and the reconciliation report the
   * same money.
   */
  alerts?: boolean;
  /**
   * Whether the outcome may move the attempt (default yes). A return the gateway has not confirmed may
   * not (confirm-return.ts): decided under the exclusive section, such a change is `held-back`, since the
   * attempt may have moved after the read that judged the return not to need confirming.
   */
  changes?: boolean;
  /**
   * What must still be true of the attempt for the outcome to move it, asked of the attempt as found
   * under the exclusive section; false: the change is `held-back`. For an outcome judged on an earlier
   * read of the attempt (the reconciliation's failures, reconciliationRecordOptions; a merchant's close,
   * close-attempt.ts), which may have moved since. Only a change is asked about: the plain-read
   * shortcut answers nothing but unchanged decisions, so it cannot pass it by.
   */
  onlyWhile?: (attempt: A) => boolean;
}

/**
 * Records one verified outcome (callback, return or the synchronous answer of a charge): find, decide,
 * save, under the store's exclusive section; then the after-change hook and any merchant alert.
 */
export async function recordOutcome<A extends StoredAttempt>(
  store: AttemptStore<A>,
  incoming: PaymentOutcome,
  options: RecordOptions<A> = {},
): Promise<InboundDecision<A>> {
  const settled = await settledFromPlainRead(store, incoming);
  if (settled) return settled;
  const decision = await store.exclusive(incoming.orderNo, async () => {
    for (let tries = 1; ; tries++) {
      const decided = decideInbound(await store.find(incoming.orderNo), incoming);
      if (decided.kind !== 'changed') return decided;
      if (options.changes === false || options.onlyWhile?.(decided.attempt) === false) {
        return { ...decided, kind: 'held-back' as const };
      }
      if (await store.save(decided.attempt, decided.next)) return decided;
      if (tries >= SAVE_TRIES) {
        throw new Error(
          `payment attempt ${incoming.orderNo} kept changing while recording ${incoming.status}`,
        );
      }
    }
  });
  if (decision.kind === 'changed') await store.afterChange?.(decision.attempt, decision.next);
  await afterUnchanged(store, decision);
  if (options.alerts === false) return decision;
  if (decision.kind === 'mismatch') {
    await store.alert({
      kind: 'amount-mismatch',
      attempt: decision.attempt,
      outcome: incoming,
      message: decision.message,
    });
  }
  if (decision.kind === 'unknown-attempt' && incoming.status === 'succeeded') {
    await store.alert({
      kind: 'paid-not-applied',
      outcome: incoming,
      reason: 'no payment attempt with this orderNo belongs to the account that signed it',
    });
  }
  return decision;
}

/**
 * A final attempt never changes again (docs/payment-states.md#monotonic-merge), so where the store
 * keeps it that way, an outcome that changes nothing for it is decided from a plain read, without
 * waiting for the exclusive section: the gateway's duplicate callbacks, and the return or charge answer
 * that arrives after the callback settled the payment, cost one read. Anything else (a change, a
 * mismatch, no attempt) is decided again under the exclusive section.
 */
async function unchangedFinalAttempt<A extends StoredAttempt>(
  store: AttemptStore<A>,
  incoming: PaymentOutcome,
): Promise<InboundDecision<A> | undefined> {
  if (!store.finalOutcomesStay && !store.outcomeStays) return undefined;
  const seen = await store.find(incoming.orderNo);
  if (!seen || !isFinalOutcome(seen.outcome)) return undefined;
  if (!store.finalOutcomesStay && !store.outcomeStays?.(seen)) return undefined;
  const decided = decideInbound(seen, incoming);
  return decided.kind === 'duplicate' || decided.kind === 'stale' ? decided : undefined;
}

/**
 * The decision for an outcome that changes nothing for a final attempt, taken from a plain read where
 * the store allows it (unchangedFinalAttempt), with the store's afterUnchanged hook run; undefined for
 * anything that must be decided under the exclusive section. recordOutcome starts with it, and a
 * callback that would be kept for the worker is answered from it first (notifications.ts): a copy of a
 * settled payment's callback then costs a read, not a job.
 */
export async function settledFromPlainRead<A extends StoredAttempt>(
  store: AttemptStore<A>,
  incoming: PaymentOutcome,
): Promise<InboundDecision<A> | undefined> {
  const settled = await unchangedFinalAttempt(store, incoming);
  if (settled) await afterUnchanged(store, settled);
  return settled;
}

async function afterUnchanged<A extends StoredAttempt>(
  store: AttemptStore<A>,
  decision: InboundDecision<A>,
): Promise<void> {
  if (decision.kind === 'duplicate' || decision.kind === 'stale') {
    await store.afterUnchanged?.(decision.attempt, decision.current);
  }
}
