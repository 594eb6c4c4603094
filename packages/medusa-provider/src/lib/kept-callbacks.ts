import {
  type KeptCallback,
  KeptCallbackRefusedError,
  keptOrderNoForLog,
  recordKeptCallback,
  redactedErrorText,
  redactText,
  type SealedCallback,
} from '@gatewaykit/core';
import type { IEventBusModuleService, Logger, MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { type GatewaykitAccount, resolveGatewaykitAccounts } from './resolve-options';
import { SessionAttempts } from './session-attempts';

/**
 * Callbacks recorded in the worker (the `recordCallbacksInWorker` option, docs/inbound.md#kept-callbacks):
 * the callback route keeps a verified status callback on Medusa's event bus and answers `success` at
 * once; the subscriber (subscribers/callback-kept.ts) records it with the account's SessionAttempts,
 * exactly as the request would have. Recording decides again from what is stored, so a copy delivered
 * twice changes nothing; the last try alerts a success it still cannot record.
 */
export const CALLBACK_KEPT_EVENT = 'gatewaykit.callback.kept';

/** What the event carries: the id of the account whose key verified the callback, and its event. */
export interface KeptCallbackData {
  accountId: string;
  /** core's SealedCallback: only what recording needs, sealed with the account's key. */
  sealed: SealedCallback;
  /** When the route kept it (ms since the epoch): how the subscriber knows its last try. */
  keptAt: number;
}

/**
 * How the Redis event bus (BullMQ) delivers the event: tried again on a throw (a cart lock held by a
 * completion, a database hiccup), waiting 1, 2, 4 … 2^15 s between tries, the 17th and last about 18
 * hours after the first: as long as the gateway's own redeliveries of a callback answered 500 (15
 * tries over 17 hours). A job that failed every try stays in Redis's failed list.
 */
export const KEPT_CALLBACK_DELIVERY = {
  attempts: 17,
  backoff: { type: 'exponential', delay: 1_000 },
} as const;

/**
 * A delivery this long after the callback was kept is taken for the last try (the event bus does not
 * tell a subscriber which try it runs): the 17th starts about 18.2 hours after the first, the 16th
 * about 9.1. Its failure alerts a success as paid but not applied (core's recordKeptCallback
 * `lastTry`). A worker that was down or behind for that long alerts on each try it still fails; one
 * whose clock runs hours behind the servers' alerts late or not at all (keep clocks in sync).
 */
export const KEPT_CALLBACK_LAST_TRY_AFTER_MS = 12 * 60 * 60 * 1000;

/**
 * How long the worker waits for a cart's lock before the try fails and the event bus tries again later
 * (KEPT_CALLBACK_DELIVERY): a cart held for long (a completion waiting on the gateway, an instance that
 * died holding the lock for Medusa's 120 s) does not hold up the worker's other events meanwhile.
 */
export const KEPT_CALLBACK_LOCK_WAIT_SECONDS = 10;

/** The id the plugin's subscriber registers under (subscribers/callback-kept.ts). */
export const CALLBACK_KEPT_SUBSCRIBER_ID = 'gatewaykit-callback-kept';

/**
 * Whether this process's event bus has the plugin's own subscriber of the event (Medusa loads
 * subscribers in every worker mode, so a server knows them too). Both of Medusa's buses drop an event
 * nobody subscribed to, and a wildcard subscriber is not ours.
 */
function hasKeptCallbackSubscriber(eventBus: IEventBusModuleService): boolean {
  const map = (eventBus as { eventToSubscribersMap?: unknown }).eventToSubscribersMap;
  if (!(map instanceof Map)) return false;
  const subscribers = (map.get(CALLBACK_KEPT_EVENT) ?? []) as { id?: unknown }[];
  return subscribers.some((subscriber) => subscriber.id === CALLBACK_KEPT_SUBSCRIBER_ID);
}

/**
 * The callback route's `keep` (core's CallbackInput.keep): for an account with `recordCallbacksInWorker`,
 * the verified callback is emitted as CALLBACK_KEPT_EVENT and true answered (core then answers
 * `success`); otherwise false, and core records it in the request. An emit that fails throws: core
 * answers 500 and the gateway delivers the callback again.
 */
export function keepCallbacksOn(
  scope: MedusaContainer,
  accounts: readonly GatewaykitAccount[],
): ((kept: KeptCallback<GatewaykitAccount>) => Promise<boolean>) | undefined {
  // No account keeps its callbacks: no `keep`, so core does not read an attempt before recording it.
  if (!accounts.some((account) => account.options.recordCallbacksInWorker)) return undefined;
  return async ({ account, sealed }: KeptCallback<GatewaykitAccount>): Promise<boolean> => {
    if (!account.options.recordCallbacksInWorker) return false;
    const eventBus = scope.resolve<IEventBusModuleService>(Modules.EVENT_BUS);
    const logger = scope.resolve<Logger>(ContainerRegistrationKeys.LOGGER);
    // Only Medusa's Redis bus keeps what it holds and tries again: with any other (the in-memory one
    // tries once and loses what it holds when the process stops) the request records the callback.
    if (eventBus.constructor?.name !== 'RedisEventBusService') {
      logger.warn(
        'gatewaykit: recordCallbacksInWorker needs the Redis event bus (@medusajs/medusa/event-bus-redis): the callback is recorded in the request',
      );
      return false;
    }
    if (!hasKeptCallbackSubscriber(eventBus)) {
      logger.warn(
        `gatewaykit: no gatewaykit subscriber of ${CALLBACK_KEPT_EVENT}: the callback is recorded in the request`,
      );
      return false;
    }
    const data: KeptCallbackData = { accountId: account.id, sealed, keptAt: Date.now() };
    await eventBus.emit({ name: CALLBACK_KEPT_EVENT, data }, KEPT_CALLBACK_DELIVERY);
    return true;
  };
}

/** A field of untrusted data, for a log line: a short string with anything card-like masked. */
function shown(value: unknown): string {
  return typeof value === 'string' && value !== '' ? redactText(value.slice(0, 64)) : '?';
}

export type KeptCallbackResult = 'recorded' | 'refused';

/**
 * The subscriber's work for one delivery of CALLBACK_KEPT_EVENT: records the callback in a session of the
 * account it names, once its seal matches that account's key (core's openKeptCallback: nothing written
 * to Redis by hand is recorded). Data that is not a sealed status callback is logged and refused (no try
 * can change it). An account this worker does not have (its configuration differs from the servers')
 * and a failure to record throw after logging, so the Redis event bus tries again; the last try of a
 * success alerts it (recordKeptCallback `lastTry`, or the log line below without an account). What is
 * thrown carries only redacted text: the event bus logs it as it is.
 */
export async function recordKeptCallbackEvent(
  scope: MedusaContainer,
  data: unknown,
): Promise<KeptCallbackResult> {
  const logger = scope.resolve<Logger>(ContainerRegistrationKeys.LOGGER);
  const { accountId, sealed, keptAt } = (typeof data === 'object' && data !== null ? data : {}) as Partial<
    Record<keyof KeptCallbackData, unknown>
  >;
  const lastTry = typeof keptAt === 'number' && Date.now() - keptAt >= KEPT_CALLBACK_LAST_TRY_AFTER_MS;
  const orderNo = keptOrderNoForLog(sealed);
  const account =
    typeof accountId === 'string'
      ? resolveGatewaykitAccounts(scope).find((candidate) => candidate.id === accountId)
      : undefined;
  if (!account) {
    const text = `gatewaykit: kept callback ${orderNo} names no gatewaykit account this worker has (${shown(accountId)})`;
    logger.error(
      lastTry
        ? `${text}: PAID BUT NOT APPLIED if it was a success, and no more tries: settle it in the gateway's merchant portal`
        : `${text}: tried again later (is the worker configured as the servers are?)`,
    );
    throw new Error(text);
  }
  try {
    const store = new SessionAttempts(scope, account, KEPT_CALLBACK_LOCK_WAIT_SECONDS);
    await recordKeptCallback({ sealed, signKey: account.signKey, store, logger, lastTry });
    return 'recorded';
  } catch (error) {
    // Not a sealed status callback of this account (core logged why): no try can change it.
    if (error instanceof KeptCallbackRefusedError) return 'refused';
    const why = redactedErrorText(error);
    logger.error(
      `gatewaykit: kept callback ${orderNo} could not be recorded (${why}): the event bus tries again`,
    );
    throw new Error(`gatewaykit: kept callback ${orderNo} not recorded: ${why}`);
  }
}
