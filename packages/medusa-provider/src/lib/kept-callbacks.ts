import {
  callbackEventSchema,
  type KeptCallback,
  outcomeFromCallback,
  recordKeptCallback,
  redactedErrorText,
  redactText,
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
 * twice changes nothing, and the reconciliation settles the payment if every try fails.
 */
export const CALLBACK_KEPT_EVENT = 'gatewaykit.callback.kept';

/** What the event carries: the id of the account whose key verified the callback, and its event. */
export interface KeptCallbackData {
  accountId: string;
  event: unknown;
  /** When the route kept it (ms since the epoch): how the subscriber knows its last try. */
  keptAt: number;
}

/**
 * How the Redis event bus (BullMQ) delivers the event: tried again on a throw (a cart lock held by a
 * completion, a database hiccup), waiting 1, 2, 4 … 2^14 s between tries, about 9 hours to the last of
 * 16 tries, as long a span as the gateway's own redeliveries of a callback answered 500 (15 tries over
 * 17 hours, at most 2 hours apart). A job that failed every try stays in Redis's failed list.
 */
export const KEPT_CALLBACK_DELIVERY = {
  attempts: 16,
  backoff: { type: 'exponential', delay: 1_000 },
} as const;

/**
 * A delivery this long after the callback was kept is the last try (the event bus does not tell the
 * subscriber which try it runs): the 16th starts about 9.1 hours after the first, the 15th about 4.6.
 * Its failure alerts a success as paid but not applied (core's recordKeptCallback `lastTry`). A worker
 * that was down for hours may alert a try early; a later try that records it then notes it recorded.
 */
export const KEPT_CALLBACK_LAST_TRY_AFTER_MS = 7 * 60 * 60 * 1000;

/**
 * How long the worker waits for a cart's lock before the try fails and the event bus tries again later
 * (KEPT_CALLBACK_DELIVERY): a cart held for long (a completion waiting on the gateway, an instance that
 * died holding the lock for Medusa's 120 s) does not hold up the worker's other events meanwhile.
 */
export const KEPT_CALLBACK_LOCK_WAIT_SECONDS = 10;

/** The event bus's subscribers by event name, where the module shows them (both of Medusa's do). */
function subscribersOf(eventBus: IEventBusModuleService, name: string): number | undefined {
  const map = (eventBus as { eventToSubscribersMap?: unknown }).eventToSubscribersMap;
  if (!(map instanceof Map)) return undefined;
  const count = (key: string) => (map.get(key) as unknown[] | undefined)?.length ?? 0;
  return count(name) + count('*');
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
  return async ({ account, event }: KeptCallback<GatewaykitAccount>): Promise<boolean> => {
    if (!account.options.recordCallbacksInWorker) return false;
    const eventBus = scope.resolve<IEventBusModuleService>(Modules.EVENT_BUS);
    // Medusa's in-memory bus tries once and loses what it holds when the process stops: a callback
    // answered `success` must not depend on it.
    if (eventBus.constructor?.name === 'LocalEventBusService') {
      scope
        .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
        .warn(
          'gatewaykit: recordCallbacksInWorker needs a durable event bus (@medusajs/medusa/event-bus-redis): the callback is recorded in the request',
        );
      return false;
    }
    // Both of Medusa's buses drop an event nobody subscribed to (the plugin's subscribers not loaded):
    // never answer `success` for a callback that would go nowhere.
    if (subscribersOf(eventBus, CALLBACK_KEPT_EVENT) === 0) {
      scope
        .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
        .warn(`gatewaykit: no subscriber of ${CALLBACK_KEPT_EVENT}: the callback is recorded in the request`);
      return false;
    }
    const data: KeptCallbackData = { accountId: account.id, event, keptAt: Date.now() };
    await eventBus.emit({ name: CALLBACK_KEPT_EVENT, data }, KEPT_CALLBACK_DELIVERY);
    return true;
  };
}

/** A field of untrusted data, for a log line: a short string with anything card-like masked. */
function shown(value: unknown): string {
  return typeof value === 'string' && value !== '' ? redactText(value.slice(0, 64)) : '?';
}

/** Whether the kept event is a payment status callback core would record (core checks it again). */
function isStatusCallback(event: unknown): boolean {
  const parsed = callbackEventSchema.safeParse(event);
  if (!parsed.success) return false;
  try {
    return outcomeFromCallback(parsed.data) !== undefined;
  } catch {
    return false;
  }
}

export type KeptCallbackResult = 'recorded' | 'refused';

/**
 * The subscriber's work for one delivery of CALLBACK_KEPT_EVENT: records the callback in a session of the
 * account it names. Data naming no configured account, or not a status callback, is logged and refused
 * (trying again cannot change it; the reconciliation settles a real payment). A failure to record throws
 * after logging it, so the Redis event bus tries again.
 */
export async function recordKeptCallbackEvent(
  scope: MedusaContainer,
  data: unknown,
): Promise<KeptCallbackResult> {
  const logger = scope.resolve<Logger>(ContainerRegistrationKeys.LOGGER);
  const { accountId, event, keptAt } = (typeof data === 'object' && data !== null ? data : {}) as Partial<
    Record<keyof KeptCallbackData, unknown>
  >;
  const lastTry = typeof keptAt === 'number' && Date.now() - keptAt >= KEPT_CALLBACK_LAST_TRY_AFTER_MS;
  const orderNo = shown((event as { data?: { orderNo?: unknown } } | undefined)?.data?.orderNo);
  const account =
    typeof accountId === 'string'
      ? resolveGatewaykitAccounts(scope).find((candidate) => candidate.id === accountId)
      : undefined;
  if (!account) {
    logger.error(
      `gatewaykit: kept callback ${orderNo} names no configured gatewaykit account (${shown(accountId)}): not recorded; the reconciliation settles its payment`,
    );
    return 'refused';
  }
  if (!isStatusCallback(event)) {
    logger.error(`gatewaykit: kept callback ${orderNo} is not a payment status callback: not recorded`);
    return 'refused';
  }
  try {
    const store = new SessionAttempts(scope, account, KEPT_CALLBACK_LOCK_WAIT_SECONDS);
    await recordKeptCallback({ event, store, logger, lastTry });
    return 'recorded';
  } catch (error) {
    logger.error(
      `gatewaykit: kept callback ${orderNo} could not be recorded (${redactedErrorText(error)}): the event bus tries again, the reconciliation settles it if every try fails`,
    );
    throw error;
  }
}
