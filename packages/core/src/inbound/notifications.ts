/**
 * The gateway's two inbound doors, handled once for both platforms (docs/inbound.md): the signed
 * callback (POST to callbackUrl, answered `success` or retried for many hours) and the signed
 * return (the shopper's browser at returnUrl). Adapters map their request onto these functions and
 * write the answer back; they keep only storage (AttemptStore) and the storefront's address.
 */
import { SignatureVerificationError } from '../errors.js';
import { type HeaderSource, readHeader } from '../headers.js';
import {
  outcomeFromCallback,
  outcomeFromReturn,
  type PaymentOutcome,
  type PaymentOutcomeStatus,
} from '../outcome.js';
import { redactedErrorText, redactText } from '../redact.js';
import { type CallbackEvent, callbackEventSchema, isKnownCallbackEventType } from '../schemas/callbacks.js';
import type { TransactionRecord } from '../schemas/transactions.js';
import { hmacSha256Hex, safeEqualHex } from '../signing.js';
import { verifyCallback } from '../verify-callback.js';
import { type ReturnQuery, toReturnParams, verifyReturn } from '../verify-return.js';
import {
  accountHoldingAttempt,
  type InboundAccount,
  type VerifiedBy,
  verifyWithAccounts,
} from './account-verification.js';
import { type AttemptStore, RecordLaterError, recordOutcome, settledFromPlainRead } from './attempt-store.js';
import { confirmReturn } from './confirm-return.js';
import type { InboundDecision, StoredAttempt } from './decision.js';

export interface InboundLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** What to write back: a plain-text body, or a redirect when `location` is set. */
export interface InboundAnswer {
  status: number;
  body: string;
  location?: string;
}

export type InboundResult<A extends StoredAttempt> =
  | InboundDecision<A>
  /** Not verified (signature, headers, time window, body): nothing was read or changed. */
  | { kind: 'rejected'; reason: string }
  /**
   * A verified notice that is not about the payment's status (refund, chargeback), or of a type core
   * does not know: acknowledged, handed to the store's notice hook, the payment unchanged.
   */
  | { kind: 'notice'; event: CallbackEvent }
  /**
   * A verified callback about the payment's status, kept by the adapter (CallbackInput.keep) to be
   * recorded later by recordKeptCallback: answered `success`, nothing recorded yet.
   */
  | { kind: 'kept'; event: CallbackEvent }
  /** A verified return the gateway could not confirm yet (confirm-return.ts): nothing changed. */
  | { kind: 'unconfirmed'; attempt: A; reason: string }
  /** Verified, but storing it failed: answered 500 so the gateway delivers it again. */
  | { kind: 'failed'; error: unknown };

export interface Handled<Acc, A extends StoredAttempt> {
  answer: InboundAnswer;
  result: InboundResult<A>;
  /** The account whose key verified the notification. */
  account?: Acc;
}

interface InboundCommon<Acc extends InboundAccount, A extends StoredAttempt> {
  /** The accounts this endpoint verifies with (every configured one, or the one its URL names). */
  accounts: readonly Acc[];
  storeFor(account: Acc): AttemptStore<A>;
  logger: InboundLogger;
}

/**
 * A kept callback as it goes on the queue: the event as JSON text, only what recording needs
 * (keptEventOf), and its seal, an HMAC of that text with the verifying account's sign key. The worker
 * records only what the seal confirms (openKeptCallback): whoever can write to the queue (Redis) cannot
 * make up a payment the gateway never reported.
 */
export interface SealedCallback {
  event: string;
  seal: string;
}

/** A verified callback about a payment's status, as an adapter keeps it (CallbackInput.keep). */
export interface KeptCallback<Acc> {
  /** The account whose key verified it; its store records it (keep its id with the event). */
  account: Acc;
  /** What to put on the queue, as it is. */
  sealed: SealedCallback;
}

/**
 * How long `keep` may take before the callback is answered 500 (the gateway delivers it again): a
 * queue that does not answer (Redis down, its client waiting to reconnect) must not hold the request.
 * A copy that reached the queue after all is recorded once like any other.
 */
export const KEEP_DEADLINE_MS = 5_000;

/**
 * The event as it is kept: the fields the outcome is read from, with the order info redacted and the
 * masked card number checked as core does for what it stores (outcomeFromOrderFields). The queue is
 * storage outside the database, readable by whoever reads the queue (Vendure's job list): what is
 * kept says no more than the attempt row will.
 */
export function keptEventOf(event: CallbackEvent, outcome: PaymentOutcome): CallbackEvent {
  const fields: Record<string, string | undefined> = {
    orderNo: event.data.orderNo,
    tradeNo: event.data.tradeNo,
    orderAmount: event.data.orderAmount,
    orderCurrency: event.data.orderCurrency,
    orderStatus: event.data.orderStatus,
    orderInfo: outcome.orderInfo,
    maskCardNo: outcome.maskCardNo,
  };
  const data = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  return { type: event.type, data };
}

/**
 * A kept callback the worker refuses for good: its seal does not match (written to the queue by hand,
 * changed there, or kept before the account's key changed), or it is not a payment status callback.
 * No try can change that: adapters finish the job instead of trying again (core has logged it).
 */
export class KeptCallbackRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeptCallbackRefusedError';
  }
}

/** Why a seal's HMAC cannot be taken for a gateway signature: its message starts with this line. */
const SEAL_CONTEXT = 'gatewaykit kept callback\n';

function sealOf(eventJson: string, signKey: string): string {
  return hmacSha256Hex(signKey, SEAL_CONTEXT + eventJson);
}

/** The callback as it is kept: keptEventOf's fields as JSON, sealed with the account's key. */
export function sealKeptCallback(
  event: CallbackEvent,
  outcome: PaymentOutcome,
  signKey: string,
): SealedCallback {
  const json = JSON.stringify(keptEventOf(event, outcome));
  return { event: json, seal: sealOf(json, signKey) };
}

/**
 * The event of a kept callback read back from the queue, once its seal matches `signKey` (the account
 * the worker records it for); throws otherwise: not kept by this store, changed on the queue, or the
 * account's key changed since it was kept.
 */
export function openKeptCallback(sealed: unknown, signKey: string): unknown {
  const { event, seal } = (typeof sealed === 'object' && sealed !== null ? sealed : {}) as Partial<
    Record<keyof SealedCallback, unknown>
  >;
  if (typeof event !== 'string' || typeof seal !== 'string' || !safeEqualHex(sealOf(event, signKey), seal)) {
    throw new KeptCallbackRefusedError(
      "a kept callback's seal does not match its account's key: not recorded",
    );
  }
  return JSON.parse(event);
}

/**
 * The orderNo a kept callback names, for a log line only: read before (or without) its seal being
 * checked, so it is shortened and redacted, never trusted; `?` when there is none.
 */
export function keptOrderNoForLog(sealed: unknown): string {
  const json = (sealed as { event?: unknown } | null | undefined)?.event;
  const orderNo = typeof json === 'string' ? /"orderNo":"([^"]{1,50})"/.exec(json)?.[1] : undefined;
  return orderNo ? redactText(orderNo) : '?';
}

async function withinDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface CallbackInput<Acc extends InboundAccount, A extends StoredAttempt>
  extends InboundCommon<Acc, A> {
  /** The body exactly as received. */
  rawBody: string | Uint8Array | undefined;
  headers: HeaderSource;
  now?: number;
  /**
   * Keeps a verified status callback durably (the platform's job queue or event bus) for a worker to
   * record with recordKeptCallback, and answers true; false leaves it to be recorded in the request (the
   * account does not keep its callbacks). A kept callback is answered `success` without waiting for the
   * platform's recording of the payment; a throw answers 500, so the gateway delivers it again
   * (docs/inbound.md#kept-callbacks). Notices (refunds, chargebacks) are always handled in the request,
   * and so is a copy for an attempt already final where the store answers those from a plain read
   * (AttemptStore.finalOutcomesStay / outcomeStays): it is a duplicate. Pass `keep` only where some
   * account keeps its callbacks: that plain read is made before it is asked.
   */
  keep?(kept: KeptCallback<Acc>): Promise<boolean>;
}

export interface ReturnInput<Acc extends InboundAccount, A extends StoredAttempt>
  extends InboundCommon<Acc, A> {
  query: ReturnQuery;
  /** The storefront page for the attempt, told the attempt's status after this return. */
  storefrontUrl(attempt: A, status: PaymentOutcomeStatus, account: Acc): string | Promise<string>;
  /**
   * The gateway's record of a trade, asked with `account`'s credentials (the client's
   * `transactions.retrieve`): a return that would change an attempt is recorded as it says
   * (confirm-return.ts).
   */
  tradeRecord(account: Acc, tradeNo: string, signal: AbortSignal): Promise<TransactionRecord>;
}

const text = (status: number, body: string): InboundAnswer => ({ status, body });
export const CALLBACK_ACCEPTED = text(200, 'success');
const INVALID_SIGNATURE = text(401, 'invalid signature');
const UNKNOWN_ORDER = text(404, 'unknown order');
const FAILED = text(500, 'error');

/** The status an attempt stands at (sent, nothing heard yet: pending), for the storefront. */
function standingStatus(attempt: StoredAttempt): PaymentOutcomeStatus {
  return attempt.outcome?.status ?? 'pending';
}

/** The status the attempt has after a decision, for the storefront. */
function statusAfter(decision: Exclude<InboundDecision, { kind: 'unknown-attempt' }>): PaymentOutcomeStatus {
  switch (decision.kind) {
    case 'changed':
      return decision.next.status;
    case 'duplicate':
    case 'stale':
      return decision.current.status;
    case 'mismatch':
    case 'held-back':
      return standingStatus(decision.attempt);
  }
}

function logDecision(logger: InboundLogger, door: string, decision: InboundDecision): void {
  const { orderNo, status } = decision.incoming;
  switch (decision.kind) {
    case 'changed':
      logger.info(
        `gatewaykit: ${door} ${orderNo}: ${decision.attempt.outcome?.status ?? 'sent'} -> ${decision.next.status}`,
      );
      return;
    case 'duplicate':
      logger.info(`gatewaykit: ${door} ${orderNo}: ${status} again, nothing changed`);
      return;
    case 'stale':
      logger.info(
        `gatewaykit: ${door} ${orderNo}: ${status} ignored, the attempt is already ${decision.current.status}`,
      );
      return;
    case 'unknown-attempt':
      logger.info(`gatewaykit: ${door} ${orderNo}: ${status} for no attempt of this account`);
      return;
    case 'held-back':
      logger.warn(
        `gatewaykit: ${door} ${orderNo}: ${status} not recorded, the attempt moved since it was read and the gateway did not confirm it`,
      );
      return;
    case 'mismatch':
      // From a callback, the store's amount-mismatch alert is the record; a return raises none.
      if (door === 'return')
        logger.warn(
          `gatewaykit: return ${orderNo}: ${status} for another amount or currency than the attempt's, nothing changed (the callback or the reconciliation alerts it)`,
        );
      return;
  }
}

type VerifiedByAccounts<Acc, T> = [VerifiedBy<Acc, T>, ...VerifiedBy<Acc, T>[]];

/** Whether an account's store holds an attempt of this orderNo (several accounts verified it). */
function holdsAttempt<Acc extends InboundAccount, A extends StoredAttempt>(input: InboundCommon<Acc, A>) {
  return async (account: Acc, orderNo: string) => (await input.storeFor(account).find(orderNo)) !== undefined;
}

/**
 * Handles one callback: verify with the account it names, turn it into an outcome, record it. The
 * gateway is answered `success` whenever retrying cannot change anything (recorded, duplicate, stale,
 * unknown orderNo, amount mismatch, notices), 401 when it is not verified, 500 when storing failed.
 */
export async function handleCallback<Acc extends InboundAccount, A extends StoredAttempt>(
  input: CallbackInput<Acc, A>,
): Promise<Handled<Acc, A>> {
  const { logger } = input;
  let verifiedBy: VerifiedByAccounts<Acc, CallbackEvent>;
  try {
    verifiedBy = verifyWithAccounts(
      input.accounts,
      readHeader(input.headers, 'gateway-no')?.trim(),
      (candidate) =>
        verifyCallback({
          rawBody: input.rawBody ?? '',
          headers: input.headers,
          gatewayNo: candidate.gatewayNo,
          signKey: candidate.signKey,
          ...(input.now === undefined ? {} : { now: input.now }),
        }),
    );
  } catch (error) {
    if (!(error instanceof SignatureVerificationError)) throw error;
    logger.warn(`gatewaykit: callback rejected: ${error.message}`);
    return { answer: INVALID_SIGNATURE, result: { kind: 'rejected', reason: error.message } };
  }
  const event = verifiedBy[0].verified;
  let account = verifiedBy[0].account;
  try {
    ({ account } = await accountHoldingAttempt(verifiedBy, event.data.orderNo, holdsAttempt(input)));
    const store = input.storeFor(account);
    const outcome = outcomeFromCallback(event);
    if (!outcome) {
      const orderNo = event.data.orderNo;
      await store.notice?.(event, orderNo ? await store.find(orderNo) : undefined);
      // Acknowledged either way: a refused notice would be retried for hours and change nothing.
      logger.info(
        isKnownCallbackEventType(event.type)
          ? `gatewaykit: callback ${event.type} for ${orderNo ?? '?'} acknowledged`
          : `gatewaykit: callback of unknown type ${redactText(event.type.slice(0, 100))} for ${orderNo ?? '?'} acknowledged, not handled`,
      );
      return { answer: CALLBACK_ACCEPTED, result: { kind: 'notice', event }, account };
    }
    if (input.keep) {
      // A copy for a payment already settled is answered from a read, as in the request: no job.
      const settled = await settledFromPlainRead(store, outcome);
      if (settled) {
        logDecision(logger, 'callback', settled);
        return { answer: CALLBACK_ACCEPTED, result: settled, account };
      }
      const kept = input.keep({ account, sealed: sealKeptCallback(event, outcome, account.signKey) });
      if (await withinDeadline(kept, KEEP_DEADLINE_MS, 'keeping the callback')) {
        logger.info(`gatewaykit: callback ${outcome.orderNo}: ${outcome.status} kept for the worker`);
        return { answer: CALLBACK_ACCEPTED, result: { kind: 'kept', event }, account };
      }
    }
    const decision = await recordCallbackOutcome(store, outcome, logger);
    return { answer: CALLBACK_ACCEPTED, result: decision, account };
  } catch (error) {
    if (error instanceof RecordLaterError) {
      logger.warn(
        `gatewaykit: callback ${event.data.orderNo ?? '?'} not recorded yet: ${redactedErrorText(error)}`,
      );
    } else {
      logger.error(
        `gatewaykit: callback ${event.data.orderNo ?? '?'} could not be stored: ${redactedErrorText(error)}`,
      );
    }
    return { answer: FAILED, result: { kind: 'failed', error }, account };
  }
}

async function recordCallbackOutcome<A extends StoredAttempt>(
  store: AttemptStore<A>,
  outcome: PaymentOutcome,
  logger: InboundLogger,
): Promise<InboundDecision<A>> {
  const decision = await recordOutcome(store, outcome);
  logDecision(logger, 'callback', decision);
  return decision;
}

/**
 * Records a callback that handleCallback kept (CallbackInput.keep), in the worker, exactly as the
 * request would have: core decides again from what is stored now, so a copy kept twice, or recorded
 * after the return or the charge's own answer, changes nothing. `sealed` is what the adapter kept, read
 * back from its queue: its seal is checked, then its event against the callback schema; either failing
 * throws KeptCallbackRefusedError (finish the job: no try can change it). Throws when it cannot be
 * recorded yet (the store failed, or RecordLaterError): the adapter's queue then tries again, and its
 * last try alerts a success it still cannot record (`lastTry`).
 */
export async function recordKeptCallback<A extends StoredAttempt>(input: {
  /** What the adapter kept (KeptCallback.sealed), read back from its queue. */
  sealed: unknown;
  /** The sign key of the account the worker records it for: the seal must match it. */
  signKey: string;
  store: AttemptStore<A>;
  logger: InboundLogger;
  /**
   * This is the queue's last try: a success it cannot record is then alerted (paid-not-applied) and
   * logged at error level, since nothing else may ever look at its attempt again (a late success
   * for an attempt already failed or closed is not the reconciliation's).
   */
  lastTry?: boolean;
}): Promise<InboundDecision<A>> {
  let outcome: PaymentOutcome | undefined;
  try {
    const parsed = callbackEventSchema.safeParse(openKeptCallback(input.sealed, input.signKey));
    outcome = parsed.success ? outcomeFromCallback(parsed.data as CallbackEvent) : undefined;
    if (!outcome) throw new KeptCallbackRefusedError('a kept callback is not a payment status callback');
  } catch (error) {
    // Nothing of it is trusted, so nothing of it is logged: only why.
    input.logger.error(`gatewaykit: kept callback refused: ${redactedErrorText(error)}`);
    throw error instanceof KeptCallbackRefusedError
      ? error
      : new KeptCallbackRefusedError(redactedErrorText(error));
  }
  try {
    return await recordCallbackOutcome(input.store, outcome, input.logger);
  } catch (error) {
    const why = redactedErrorText(error);
    if (!input.lastTry) {
      input.logger.warn(
        `gatewaykit: kept callback ${outcome.orderNo} not recorded yet, tried again later: ${why}`,
      );
      throw error;
    }
    input.logger.error(
      `gatewaykit: kept callback ${outcome.orderNo} (${outcome.status}) not recorded by its last try: ${why}`,
    );
    if (outcome.status === 'succeeded') {
      await input.store
        .alert({
          kind: 'paid-not-applied',
          outcome,
          reason: `the gateway's success callback was kept, and every try to record it failed (last: ${why})`,
        })
        .catch((alertError: unknown) =>
          input.logger.error(
            `gatewaykit: PAID BUT NOT APPLIED: ${outcome.orderNo} (trade ${outcome.tradeNo ?? '?'}, ${outcome.amount ?? '?'} ${outcome.currency ?? '?'}): its success callback could not be recorded, nor alerted (${redactedErrorText(alertError)}): settle it in the gateway's merchant portal`,
          ),
        );
    }
    throw error;
  }
}

/**
 * A return whose outcome the store records later (RecordLaterError): the shopper is sent to the
 * storefront with the attempt as it stands, as when the gateway cannot confirm the trade. Undefined when
 * the attempt cannot be read either (the shopper then gets the error answer).
 */
async function sendOnAsItStands<Acc extends InboundAccount, A extends StoredAttempt>(
  input: ReturnInput<Acc, A>,
  outcome: PaymentOutcome,
  account: Acc,
): Promise<{ answer: InboundAnswer; attempt: A } | undefined> {
  try {
    const attempt = await input.storeFor(account).find(outcome.orderNo);
    if (!attempt) return undefined;
    const location = await input.storefrontUrl(attempt, standingStatus(attempt), account);
    return { answer: { status: 303, body: '', location }, attempt };
  } catch {
    return undefined;
  }
}

/**
 * Handles one return: verified, and when it would change its attempt confirmed by the gateway's record
 * of its trade (confirm-return.ts), it is recorded like the callback (whichever arrives first wins, the
 * other is a duplicate); the shopper is then sent to the storefront with the attempt's status.
 * Unverified, or a trade the gateway does not have for this orderNo: 401; an orderNo of no attempt:
 * 404; the gateway not reachable: nothing recorded, the shopper sent on with the status as it stands.
 */
export async function handleReturn<Acc extends InboundAccount, A extends StoredAttempt>(
  input: ReturnInput<Acc, A>,
): Promise<Handled<Acc, A>> {
  const { logger } = input;
  const params = toReturnParams(input.query);
  let verifiedBy: VerifiedByAccounts<Acc, PaymentOutcome>;
  try {
    verifiedBy = verifyWithAccounts(input.accounts, params.get('gatewayNo') ?? undefined, (candidate) =>
      outcomeFromReturn(verifyReturn({ query: params, signKey: candidate.signKey })),
    );
  } catch (error) {
    if (!(error instanceof SignatureVerificationError)) throw error;
    logger.warn(`gatewaykit: return rejected: ${error.message}`);
    return { answer: INVALID_SIGNATURE, result: { kind: 'rejected', reason: error.message } };
  }
  const outcome = verifiedBy[0].verified;
  let account = verifiedBy[0].account;
  try {
    ({ account } = await accountHoldingAttempt(verifiedBy, outcome.orderNo, holdsAttempt(input)));
    const store = input.storeFor(account);
    const holder = account;
    const confirmed = await confirmReturn(store, outcome, (tradeNo, signal) =>
      input.tradeRecord(holder, tradeNo, signal),
    );
    if (confirmed.kind === 'forged') {
      logger.warn(`gatewaykit: return ${outcome.orderNo} rejected: ${confirmed.reason}`);
      return { answer: INVALID_SIGNATURE, result: { kind: 'rejected', reason: confirmed.reason }, account };
    }
    if (confirmed.kind === 'unconfirmed') {
      // The callback (or the reconciliation) records it; the shopper sees the attempt as it stands.
      logger.warn(`gatewaykit: return ${outcome.orderNo} not recorded: ${confirmed.reason}`);
      const location = await input.storefrontUrl(
        confirmed.attempt,
        standingStatus(confirmed.attempt),
        account,
      );
      return {
        answer: { status: 303, body: '', location },
        result: { kind: 'unconfirmed', attempt: confirmed.attempt, reason: confirmed.reason },
        account,
      };
    }
    // No merchant alert from a return: the shopper can replay it (RecordOptions.alerts). One that was
    // not confirmed may only confirm what is stored.
    const decision = await recordOutcome(store, confirmed.outcome, {
      alerts: false,
      changes: confirmed.kind === 'confirmed',
    });
    logDecision(logger, 'return', decision);
    if (decision.kind === 'unknown-attempt') return { answer: UNKNOWN_ORDER, result: decision, account };
    const location = await input.storefrontUrl(decision.attempt, statusAfter(decision), account);
    return { answer: { status: 303, body: '', location }, result: decision, account };
  } catch (error) {
    const waiting =
      error instanceof RecordLaterError ? await sendOnAsItStands(input, outcome, account) : undefined;
    if (waiting) {
      logger.warn(`gatewaykit: return ${outcome.orderNo} not recorded yet: ${redactedErrorText(error)}`);
      return {
        answer: waiting.answer,
        result: { kind: 'unconfirmed', attempt: waiting.attempt, reason: redactedErrorText(error) },
        account,
      };
    }
    logger.error(`gatewaykit: return ${outcome.orderNo} could not be stored: ${redactedErrorText(error)}`);
    return { answer: FAILED, result: { kind: 'failed', error }, account };
  }
}
