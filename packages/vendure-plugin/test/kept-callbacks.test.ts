import { createHmac } from 'node:crypto';
import type { AttemptStore, PaymentOutcome, StoredAttempt } from '@gatewaykit/core';
import { type ConfigService, type JobQueueService, Logger } from '@vendure/core';
import { describe, expect, it, vi } from 'vitest';
import type { GatewayEndpointService, InboundEndpoint } from '../src/http/gateway-endpoint.service';
import { KEPT_CALLBACKS_QUEUE, KeptCallbacks } from '../src/service/kept-callbacks.service';

const silent = { info() {}, warn() {}, error() {} };

/** The method's sign key: core seals what is kept with it, the worker checks the seal with it. */
const SIGN_KEY = 'method-sign-key';

/** A job's event and seal for `event`, as core would have sealed it (any event, even junk). */
function sealedJob(event: unknown, signKey = SIGN_KEY) {
  const json = JSON.stringify(event);
  const seal = createHmac('sha256', signKey).update(`gatewaykit kept callback\n${json}`).digest('hex');
  return { event: json, seal };
}

/** Vendure's config with a durable job queue strategy (BullMQ's, by its class name). */
const durable = {
  jobQueueOptions: { jobQueueStrategy: new (class BullMQJobQueueStrategy {})() },
} as unknown as ConfigService;

/** One attempt, recorded as a worker's store would: what core's recordKeptCallback reads and saves. */
function storeOf(outcome?: PaymentOutcome) {
  const attempt: StoredAttempt = { orderNo: 'O-1-1', orderAmount: '10.00', currency: 'USD', outcome };
  const saved: string[] = [];
  const alerts: string[] = [];
  const store: AttemptStore = {
    exclusive: (_orderNo, work) => work(),
    find: async (orderNo) => (orderNo === attempt.orderNo ? { ...attempt } : undefined),
    save: async (_found, next) => {
      attempt.outcome = next;
      saved.push(next.status);
      return true;
    },
    alert: async (alert) => {
      alerts.push(alert.kind);
    },
  };
  return { store, saved, alerts };
}

/** A job queue that runs nothing by itself: the test hands each added job to `process`. */
function fakeQueues() {
  const jobs: { data: unknown; retries: number | undefined }[] = [];
  let process: ((job: { data: unknown; attempts: number; retries: number }) => Promise<unknown>) | undefined;
  const service = {
    createQueue: async (options: {
      name: string;
      process: (job: { data: unknown; attempts: number; retries: number }) => Promise<unknown>;
    }) => {
      expect(options.name).toBe(KEPT_CALLBACKS_QUEUE);
      process = options.process;
      return {
        add: async (data: unknown, options?: { retries?: number }) => {
          jobs.push({ data, retries: options?.retries });
        },
      };
    },
  } as unknown as JobQueueService;
  return {
    service,
    jobs,
    run: (data: unknown, attempts = 0) =>
      (process as NonNullable<typeof process>)({ data, attempts, retries: 10 }),
  };
}

/** The endpoint of the URL `/default-token/gatewaykit-hosted`; any other names nothing. */
function endpointsWith(store: AttemptStore) {
  return {
    named: async (token: string, code: string, handle: (inbound: InboundEndpoint) => Promise<unknown>) => {
      if (token !== 'default-token' || code !== 'gatewaykit-hosted') return { notFound: 'unknown channel' };
      return {
        handled: await handle({
          accounts: [{ signKey: SIGN_KEY }],
          storeFor: () => store,
          logger: silent,
        } as unknown as InboundEndpoint),
      };
    },
  } as unknown as GatewayEndpointService;
}

const success = {
  type: 'transaction.success',
  data: {
    orderNo: 'O-1-1',
    tradeNo: 'T1',
    orderAmount: '10.00',
    orderCurrency: 'USD',
    orderStatus: 'success',
  },
};
/** What core hands `keep` for that callback (handleCallback: sealKeptCallback). */
const sealedSuccess = sealedJob(success);

describe('KeptCallbacks (docs/inbound.md#kept-callbacks)', () => {
  it('off (the default): keeps nothing, so the request records the callback', async () => {
    const queues = fakeQueues();
    const kept = new KeptCallbacks(queues.service, durable, endpointsWith(storeOf().store), {} as never);
    await kept.onModuleInit();
    expect(await kept.keep('default-token', 'gatewaykit-hosted', sealedSuccess)).toBe(false);
    expect(queues.jobs).toEqual([]);
  });

  it('on: a job of the URL and the event (JSON, with retries); the worker records it once, a second copy is a duplicate', async () => {
    const queues = fakeQueues();
    const { store, saved } = storeOf();
    const kept = new KeptCallbacks(queues.service, durable, endpointsWith(store), {
      recordCallbacksInWorker: true,
    } as never);
    await kept.onModuleInit();
    expect(await kept.keep('default-token', 'gatewaykit-hosted', sealedSuccess)).toBe(true);
    expect(queues.jobs).toHaveLength(1);
    const job = queues.jobs[0] as {
      data: { channelToken: string; methodCode: string; event: string; seal: string };
      retries: number;
    };
    expect(job.data.channelToken).toBe('default-token');
    expect(job.data.methodCode).toBe('gatewaykit-hosted');
    expect(job.data).toMatchObject(sealedSuccess);
    expect(job.retries).toBeGreaterThan(0);
    await queues.run(job.data);
    await queues.run(job.data);
    expect(saved).toEqual(['succeeded']);
  });

  it('the worker: a URL that names nothing now is logged at error level and done (no retry can help); a store failure throws (retried), and its last try alerts the success as paid but not applied', async () => {
    const queues = fakeQueues();
    const { store, alerts } = storeOf();
    const kept = new KeptCallbacks(queues.service, durable, endpointsWith(store), {
      recordCallbacksInWorker: true,
    } as never);
    await kept.onModuleInit();
    const job = sealedSuccess;
    const errors = vi.spyOn(Logger, 'error').mockImplementation(() => undefined);
    try {
      await expect(
        queues.run({ channelToken: 'deleted', methodCode: 'gatewaykit-hosted', ...job }),
      ).resolves.toBeUndefined();
      expect(errors).toHaveBeenCalledWith(
        expect.stringMatching(/O-1-1 not recorded: unknown channel/),
        expect.anything(),
      );
    } finally {
      errors.mockRestore();
    }
    store.find = async () => {
      throw new Error('database down');
    };
    await expect(
      queues.run({ channelToken: 'default-token', methodCode: 'gatewaykit-hosted', ...job }),
    ).rejects.toThrow('database down');
    expect(alerts).toEqual([]);
    // The last try (Vendure counts the tries made before it) alerts: nothing else may look again.
    await expect(
      queues.run({ channelToken: 'default-token', methodCode: 'gatewaykit-hosted', ...job }, 10),
    ).rejects.toThrow('database down');
    expect(alerts).toEqual(['paid-not-applied']);
  });

  it('refuses to start with the option on and the in-memory job queue (callbacks answered would die with the process)', async () => {
    const queues = fakeQueues();
    const inMemory = {
      jobQueueOptions: { jobQueueStrategy: new (class InMemoryJobQueueStrategy {})() },
    } as unknown as ConfigService;
    const on = new KeptCallbacks(queues.service, inMemory, endpointsWith(storeOf().store), {
      recordCallbacksInWorker: true,
    } as never);
    await expect(on.onModuleInit()).rejects.toThrow(/durable job queue/);
    const off = new KeptCallbacks(queues.service, inMemory, endpointsWith(storeOf().store), {} as never);
    await expect(off.onModuleInit()).resolves.toBeUndefined();
  });

  it('attack: a job written to the queue by hand (no seal, a changed event, or sealed with another key) is refused before any read, and not tried again', async () => {
    const queues = fakeQueues();
    const { store, saved } = storeOf();
    let reads = 0;
    const find = store.find;
    store.find = async (orderNo) => {
      reads++;
      return find(orderNo);
    };
    const kept = new KeptCallbacks(queues.service, durable, endpointsWith(store), {
      recordCallbacksInWorker: true,
    } as never);
    await kept.onModuleInit();
    const url = { channelToken: 'default-token', methodCode: 'gatewaykit-hosted' };
    const changed = success.data.orderAmount.replace('10.00', '1.00');
    for (const forged of [
      { event: sealedSuccess.event },
      { event: sealedSuccess.event.replace('"10.00"', `"${changed}"`), seal: sealedSuccess.seal },
      sealedJob(success, 'someone-elses-key'),
    ]) {
      // Done for good (no try can change it), after core's error log.
      await expect(queues.run({ ...url, ...forged })).resolves.toBeUndefined();
    }
    // Sealed, but not a status callback.
    await expect(
      queues.run({ ...url, ...sealedJob({ type: 'refund.success', data: { orderNo: 'O-1-1' } }) }),
    ).resolves.toBeUndefined();
    expect(reads).toBe(0);
    expect(saved).toEqual([]);
  });
});
