import { createHmac } from 'node:crypto';
import type { PaymentOutcome, StoredAttempt } from '@gatewaykit/core';
import { signedCallback } from '@gatewaykit/core/testing';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { POST } from '../src/api/hooks/gatewaykit/callback/route';
import {
  CALLBACK_KEPT_EVENT,
  KEPT_CALLBACK_LAST_TRY_AFTER_MS,
  KEPT_CALLBACK_LOCK_WAIT_SECONDS,
  keepCallbacksOn,
} from '../src/lib/kept-callbacks';
import { parseOptions } from '../src/lib/options';
import subscriber, { config as subscriberConfig } from '../src/subscribers/callback-kept';
import { OPTIONS } from './fake-provider';

/**
 * The account's store, in memory: what Medusa's payment sessions would hold for each orderNo, every
 * write counted. Core decides on it as on SessionAttempts (lib/session-attempts.ts, tested on its own).
 */
const stores = vi.hoisted(() => ({
  attempts: new Map<string, StoredAttempt>(),
  saved: [] as { account: string; orderNo: string; status: string }[],
  lockWaits: [] as (number | undefined)[],
  notices: [] as string[],
  alerts: [] as string[],
  failWith: undefined as Error | undefined,
}));
vi.mock('../src/lib/session-attempts', () => ({
  SessionAttempts: class {
    constructor(
      _scope: unknown,
      private readonly account: { id: string },
      lockWaitSeconds?: number,
    ) {
      stores.lockWaits.push(lockWaitSeconds);
    }
    async exclusive<T>(_orderNo: string, work: () => Promise<T>): Promise<T> {
      return work();
    }
    async find(orderNo: string) {
      if (stores.failWith) throw stores.failWith;
      return stores.attempts.get(orderNo);
    }
    async save(attempt: StoredAttempt, next: PaymentOutcome) {
      stores.attempts.set(attempt.orderNo, { ...attempt, outcome: next });
      stores.saved.push({ account: this.account.id, orderNo: attempt.orderNo, status: next.status });
      return true;
    }
    async alert(alert: { kind: string }) {
      stores.alerts.push(alert.kind);
    }
    async notice(event: { type: string }) {
      stores.notices.push(event.type);
    }
  },
}));

const SECOND = { ...OPTIONS, gatewayNo: '87654321', signKey: 'second-unit-test-sign-key' };

const success = (orderNo: string) => ({
  type: 'transaction.success',
  data: {
    orderNo,
    tradeNo: `T_${orderNo}`,
    orderStatus: 'success',
    orderAmount: '60.00',
    orderCurrency: 'USD',
  },
});

function sent(orderNo: string): void {
  stores.attempts.set(orderNo, { orderNo, orderAmount: '60.00', currency: 'USD', outcome: undefined });
}

/**
 * A Medusa container with two gatewaykit accounts, the first recording its callbacks in the worker,
 * the second in the request, and an event bus that has the plugin's subscriber.
 */
function container(eventBus: { emit: ReturnType<typeof vi.fn>; subscribed?: boolean } = { emit: vi.fn() }) {
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() };
  // Named as Medusa's Redis bus: the only one the route keeps callbacks on.
  const bus = new (class RedisEventBusService {
    emit = eventBus.emit;
    eventToSubscribersMap = new Map(
      eventBus.subscribed === false
        ? [
            [CALLBACK_KEPT_EVENT, [{ id: 'someone-elses' }]],
            ['*', [{ id: 'wildcard' }]],
          ]
        : [[CALLBACK_KEPT_EVENT, [{ id: 'gatewaykit-callback-kept' }]]],
    );
  })();
  const entry = (id: string, options: object) => ({
    resolve: '@gatewaykit/medusa-provider/providers/gatewaykit',
    id,
    options,
  });
  const config = {
    modules: [
      {
        options: {
          providers: [
            entry('gatewaykit', { ...OPTIONS, recordCallbacksInWorker: true }),
            entry('second', SECOND),
          ],
        },
      },
    ],
  };
  const resolve = (key: string) => {
    if (key === ContainerRegistrationKeys.CONFIG_MODULE) return config;
    if (key === ContainerRegistrationKeys.LOGGER) return logger;
    if (key === Modules.EVENT_BUS) return bus;
    throw new Error(`resolved ${key}`);
  };
  return { scope: { resolve }, logger, emit: eventBus.emit };
}

/** POSTs one callback to the route; its answer as `status body`. */
async function post(
  scope: { resolve(key: string): unknown },
  callback: { body: string; headers: Record<string, string> },
): Promise<string> {
  const answer = { status: 0, body: '' };
  const res = {
    status(code: number) {
      answer.status = code;
      return res;
    },
    type: () => res,
    send(body: string) {
      answer.body = body;
    },
    redirect: vi.fn(),
  };
  await POST(
    { scope, rawBody: Buffer.from(callback.body), headers: callback.headers } as never,
    res as never,
  );
  return `${answer.status} ${answer.body}`;
}

const signed = (event: object, options: { gatewayNo: string; signKey: string } = OPTIONS) =>
  signedCallback({ gatewayNo: options.gatewayNo, signKey: options.signKey, body: event as never });

/** The data the route emitted, as the subscriber reads it back from Redis (JSON). */
function emitted(emit: ReturnType<typeof vi.fn>, call = 0): unknown {
  return JSON.parse(JSON.stringify(emit.mock.calls[call]![0].data));
}

/** The sealed event core would keep for `event`, with `signKey` (the account's): as the route emits it. */
function sealedWith(event: unknown, signKey = OPTIONS.signKey) {
  const json = JSON.stringify(event);
  return {
    event: json,
    seal: createHmac('sha256', signKey).update(`gatewaykit kept callback\n${json}`).digest('hex'),
  };
}

beforeEach(() => {
  stores.attempts.clear();
  stores.saved.length = 0;
  stores.lockWaits.length = 0;
  stores.notices.length = 0;
  stores.alerts.length = 0;
  stores.failWith = undefined;
});

describe('POST /hooks/gatewaykit/callback with recordCallbacksInWorker', () => {
  it('keeps a verified status callback on the event bus, with retries, and answers success before anything is recorded', async () => {
    sent('ps_1');
    const { scope, emit } = container();
    expect(await post(scope, signed(success('ps_1')))).toBe('200 success');
    expect(emit).toHaveBeenCalledTimes(1);
    const [message, options] = emit.mock.calls[0]!;
    expect(message.name).toBe(CALLBACK_KEPT_EVENT);
    expect(message.data).toEqual({
      accountId: 'gatewaykit',
      sealed: { event: expect.any(String), seal: expect.stringMatching(/^[0-9a-f]{64}$/) },
      keptAt: expect.any(Number),
    });
    expect(JSON.parse(message.data.sealed.event)).toEqual({
      type: 'transaction.success',
      data: success('ps_1').data,
    });
    expect(options.attempts).toBeGreaterThan(1);
    expect(options.backoff).toMatchObject({ type: 'exponential' });
    expect(stores.saved).toEqual([]);
    expect(stores.attempts.get('ps_1')!.outcome).toBeUndefined();
  });

  it('records in the request for an account without the option: nothing emitted', async () => {
    sent('ps_2');
    const { scope, emit } = container();
    expect(await post(scope, signed(success('ps_2'), SECOND))).toBe('200 success');
    expect(emit).not.toHaveBeenCalled();
    expect(stores.saved).toEqual([{ account: 'second', orderNo: 'ps_2', status: 'succeeded' }]);
  });

  it('attack: a forged, unsigned or stale callback is answered 401 and never reaches the event bus', async () => {
    sent('ps_3');
    const { scope, emit, logger } = container();
    const event = success('ps_3');
    const good = signed(event);
    const forged = [
      signed(event, { gatewayNo: OPTIONS.gatewayNo, signKey: 'not-the-sign-key' }),
      { body: good.body, headers: { 'content-type': 'application/json' } },
      // The signature of another body: the amount raised after signing.
      { body: good.body.replace('60.00', '0.01'), headers: good.headers },
      signedCallback({
        gatewayNo: OPTIONS.gatewayNo,
        signKey: OPTIONS.signKey,
        body: event,
        requestTime: Date.now() - 3_600_000,
      }),
    ];
    for (const callback of forged) expect(await post(scope, callback)).toBe('401 invalid signature');
    expect(emit).not.toHaveBeenCalled();
    expect(stores.saved).toEqual([]);
    expect(logger.warn).toHaveBeenCalledTimes(forged.length);
  });

  it('answers 500 when the event cannot be kept (the gateway delivers it again), nothing recorded', async () => {
    sent('ps_4');
    const { scope, logger } = container({
      emit: vi.fn().mockRejectedValue(new Error('Redis connection lost')),
    });
    expect(await post(scope, signed(success('ps_4')))).toBe('500 error');
    expect(stores.saved).toEqual([]);
    expect(logger.error).toHaveBeenCalledWith(expect.stringContaining('Redis connection lost'));
  });

  it('handles a refund notice in the request, never on the event bus', async () => {
    sent('ps_5');
    const { scope, emit } = container();
    const refund = {
      type: 'refund.success',
      data: { orderNo: 'ps_5', tradeNo: 'T_ps_5', amount: '10.00', currency: 'USD', merTrackNo: 'R1' },
    };
    expect(await post(scope, signed(refund))).toBe('200 success');
    expect(emit).not.toHaveBeenCalled();
    expect(stores.notices).toEqual(['refund.success']);
  });

  it("records in the request when the plugin's subscriber is not on the bus (only others', or a wildcard): the event would go nowhere", async () => {
    sent('ps_6');
    const { scope, emit, logger } = container({ emit: vi.fn(), subscribed: false });
    expect(await post(scope, signed(success('ps_6')))).toBe('200 success');
    expect(emit).not.toHaveBeenCalled();
    expect(stores.saved).toEqual([{ account: 'gatewaykit', orderNo: 'ps_6', status: 'succeeded' }]);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('no gatewaykit subscriber'));
  });
});

describe('subscriber gatewaykit.callback.kept', () => {
  const deliver = (scope: { resolve(key: string): unknown }, data: unknown) =>
    subscriber({ event: { name: CALLBACK_KEPT_EVENT, data }, container: scope } as never);

  it('subscribes to the event the route emits, under a fixed id (the retries skip nothing)', () => {
    expect(subscriberConfig).toEqual({
      event: CALLBACK_KEPT_EVENT,
      context: { subscriberId: 'gatewaykit-callback-kept' },
    });
  });

  it('records a kept callback once; a second delivery of the event is a duplicate that changes nothing', async () => {
    sent('ps_7');
    const { scope, emit, logger } = container();
    expect(await post(scope, signed(success('ps_7')))).toBe('200 success');
    const data = emitted(emit);
    // The request built the account's store (a minute's wait for the lock; it recorded nothing).
    expect(stores.lockWaits).toEqual([undefined]);
    stores.lockWaits.length = 0;
    await deliver(scope, data);
    expect(stores.saved).toEqual([{ account: 'gatewaykit', orderNo: 'ps_7', status: 'succeeded' }]);
    expect(stores.attempts.get('ps_7')!.outcome).toMatchObject({ status: 'succeeded', tradeNo: 'T_ps_7' });
    await deliver(scope, data);
    expect(stores.saved).toHaveLength(1);
    expect(logger.info).toHaveBeenCalledWith(
      expect.stringContaining('ps_7: succeeded again, nothing changed'),
    );
    expect(logger.error).not.toHaveBeenCalled();
    // The worker waits less for a held cart than a request (a minute): the event bus tries again later.
    expect(stores.lockWaits).toEqual([KEPT_CALLBACK_LOCK_WAIT_SECONDS, KEPT_CALLBACK_LOCK_WAIT_SECONDS]);
    expect(KEPT_CALLBACK_LOCK_WAIT_SECONDS).toBeLessThan(60);
  });

  it('the last try (the event kept long enough ago) alerts a success it cannot record as paid but not applied; earlier tries do not', async () => {
    sent('ps_11');
    const { scope } = container();
    stores.failWith = new Error('database down');
    const sealed = sealedWith(success('ps_11'));
    const kept = (ago: number) => ({ accountId: 'gatewaykit', sealed, keptAt: Date.now() - ago });
    await expect(deliver(scope, kept(60_000))).rejects.toThrow('database down');
    expect(stores.alerts).toEqual([]);
    await expect(deliver(scope, kept(KEPT_CALLBACK_LAST_TRY_AFTER_MS + 1000))).rejects.toThrow(
      'database down',
    );
    expect(stores.alerts).toEqual(['paid-not-applied']);
  });

  it("Medusa's in-memory event bus: the callback is recorded in the request, never kept there", async () => {
    sent('ps_12');
    const { scope, emit, logger } = container();
    const local = new (class LocalEventBusService {
      emit = emit;
      eventToSubscribersMap = new Map([[CALLBACK_KEPT_EVENT, [{ id: 'gatewaykit-callback-kept' }]]]);
    })();
    const withLocalBus = {
      resolve: (key: string) => (key === Modules.EVENT_BUS ? local : scope.resolve(key)),
    };
    expect(await post(withLocalBus, signed(success('ps_12')))).toBe('200 success');
    expect(emit).not.toHaveBeenCalled();
    expect(stores.saved).toEqual([{ account: 'gatewaykit', orderNo: 'ps_12', status: 'succeeded' }]);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringMatching(/needs the Redis event bus/));
  });

  it('no account keeps its callbacks: no keep at all (core reads nothing before recording)', () => {
    const { scope } = container();
    const off = [{ id: 'a', options: { recordCallbacksInWorker: false } }] as never;
    expect(keepCallbacksOn(scope as never, off)).toBeUndefined();
    const on = [{ id: 'a', options: { recordCallbacksInWorker: true } }] as never;
    expect(keepCallbacksOn(scope as never, on)).toBeTypeOf('function');
  });

  it('records in the store of the account the event names', async () => {
    sent('ps_8');
    const { scope } = container();
    await deliver(scope, { accountId: 'second', sealed: sealedWith(success('ps_8'), SECOND.signKey) });
    expect(stores.saved).toEqual([{ account: 'second', orderNo: 'ps_8', status: 'succeeded' }]);
  });

  it("an account this worker does not have (its configuration differs from the servers'): logged and thrown, so the bus tries again; the last try says paid but not applied", async () => {
    sent('ps_9');
    const { scope, logger } = container();
    const sealed = sealedWith(success('ps_9'));
    for (const accountId of ['retired-account', undefined, 42]) {
      await expect(deliver(scope, { accountId, sealed, keptAt: Date.now() })).rejects.toThrow(
        /ps_9 names no gatewaykit account this worker has/,
      );
    }
    expect(stores.saved).toEqual([]);
    expect(logger.error).toHaveBeenCalledTimes(3);
    expect(logger.error).not.toHaveBeenCalledWith(expect.stringContaining('PAID BUT NOT APPLIED'));
    await expect(
      deliver(scope, { accountId: 'retired-account', sealed, keptAt: Date.now() - 13 * 3_600_000 }),
    ).rejects.toThrow();
    expect(logger.error).toHaveBeenLastCalledWith(expect.stringContaining('PAID BUT NOT APPLIED'));
  });

  it('attack: refuses, without recording or throwing, data written to Redis by hand: no seal, a seal of another key or of other data, or a sealed event that is not a status callback', async () => {
    sent('ps_10');
    const { scope, logger } = container();
    const real = sealedWith(success('ps_10'));
    const madeUp = JSON.stringify({
      ...success('ps_10'),
      data: { ...success('ps_10').data, tradeNo: 'T_forged' },
    });
    const junk = [
      { accountId: 'gatewaykit' },
      { accountId: 'gatewaykit', sealed: 'transaction.success' },
      { accountId: 'gatewaykit', sealed: { event: real.event } },
      { accountId: 'gatewaykit', sealed: { event: madeUp, seal: real.seal } },
      { accountId: 'gatewaykit', sealed: sealedWith(success('ps_10'), 'someone-elses-key') },
      // Sealed with the account's key but by an account the event does not name.
      { accountId: 'second', sealed: real },
      { accountId: 'gatewaykit', sealed: sealedWith({ type: 'refund.success', data: { orderNo: 'ps_10' } }) },
      {
        accountId: 'gatewaykit',
        sealed: sealedWith({ type: 'made.up', data: { orderNo: 'ps_10', orderStatus: 'success' } }),
      },
    ];
    for (const data of junk) await expect(deliver(scope, data)).resolves.toBeUndefined();
    expect(stores.saved).toEqual([]);
    expect(stores.attempts.get('ps_10')!.outcome).toBeUndefined();
    expect(logger.error).toHaveBeenCalledTimes(junk.length);
  });

  it('throws when the store fails, so the event bus tries again; the error names the orderNo, never card data', async () => {
    sent('ps_11');
    const { scope, logger } = container();
    stores.failWith = new Error('connection terminated while reading card 4111111111111111');
    await expect(
      deliver(scope, { accountId: 'gatewaykit', sealed: sealedWith(success('ps_11')) }),
    ).rejects.toThrow(/connection terminated/);
    expect(stores.saved).toEqual([]);
    const logged = JSON.stringify([logger.error.mock.calls, logger.warn.mock.calls]);
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining('kept callback ps_11 could not be recorded'),
    );
    expect(logged).not.toContain('4111111111111111');
    // The next delivery, once the store is back, records it.
    stores.failWith = undefined;
    await deliver(scope, { accountId: 'gatewaykit', sealed: sealedWith(success('ps_11')) });
    expect(stores.saved).toEqual([{ account: 'gatewaykit', orderNo: 'ps_11', status: 'succeeded' }]);
  });
});

describe('option recordCallbacksInWorker', () => {
  it('is off unless set; true or false, also as text from the environment; anything else stops the start', () => {
    expect(parseOptions(OPTIONS).recordCallbacksInWorker).toBe(false);
    expect(parseOptions({ ...OPTIONS, recordCallbacksInWorker: '' }).recordCallbacksInWorker).toBe(false);
    expect(parseOptions({ ...OPTIONS, recordCallbacksInWorker: true }).recordCallbacksInWorker).toBe(true);
    expect(parseOptions({ ...OPTIONS, recordCallbacksInWorker: 'TRUE' }).recordCallbacksInWorker).toBe(true);
    expect(parseOptions({ ...OPTIONS, recordCallbacksInWorker: 'false' }).recordCallbacksInWorker).toBe(
      false,
    );
    for (const value of ['yes', 1, 'on'])
      expect(() => parseOptions({ ...OPTIONS, recordCallbacksInWorker: value })).toThrow(
        'invalid option "recordCallbacksInWorker": must be true or false',
      );
  });
});
