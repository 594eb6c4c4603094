import { type Injector, Refund, RequestContext, TransactionSubscriber } from '@vendure/core';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  gatewaykitRefundProcess,
  isGatewaykitRefund,
  REFUND_SETTLED_MEANWHILE,
} from '../src/config/refund-process';
import { setContextManager } from '../src/service/context-manager';
import { RefundFlights } from '../src/service/refund-flights';

describe('the refund process step Pending -> Pending', () => {
  const start = (refund: { metadata?: unknown }, from = 'Pending', to = 'Pending') =>
    gatewaykitRefundProcess.onTransitionStart?.(from as never, to as never, { refund } as never);

  it("is taken, and cancelled (the refund keeps Pending), only for the plugin's refunds", async () => {
    expect(isGatewaykitRefund({ metadata: { gatewaykit: 'gateway' } })).toBe(true);
    expect(await start({ metadata: { gatewaykit: 'gateway' } })).toBe(false);
    expect(await start({ metadata: { gatewaykit: 'manual' } })).toBe(false);
    expect(await start({ metadata: {} })).toBe('Cannot transition Refund from "Pending" to "Pending"');
    expect(await start({ metadata: {} }, 'Pending', 'Settled')).toBe(true);
  });
});

describe("settling one of the plugin's refunds", () => {
  /** A connection on `type` whose refund row is `committed`; `steps` records the locks and reads in order. */
  function connectionWith(type: string, committed: string) {
    const steps: string[] = [];
    const chain = (entity: unknown) => {
      const query = {
        select: () => query,
        where: () => query,
        setLock: (mode: string) => {
          steps.push(`${entity === Refund ? 'refund' : 'order'} ${mode}`);
          return query;
        },
        getOne: async () => {
          steps.push(`read ${entity === Refund ? 'refund' : 'order'}`);
          return entity === Refund ? { id: 5, state: committed } : { id: 10, state: 'PaymentSettled' };
        },
      };
      return query;
    };
    const connection = {
      rawConnection: { options: { type } },
      getRepository: (_ctx: unknown, entity: unknown) => ({ createQueryBuilder: () => chain(entity) }),
    };
    gatewaykitRefundProcess.init?.({ get: () => connection } as unknown as Injector);
    return steps;
  }

  const settle = (to: string) =>
    gatewaykitRefundProcess.onTransitionStart?.(
      'Pending',
      to as never,
      {
        ctx: RequestContext.empty(),
        order: { id: 10 },
        refund: { id: 5, state: 'Pending', metadata: { gatewaykit: 'gateway' } },
      } as never,
    );

  it('attack: an admin settleRefund that read the refund Pending before its notice failed it is refused (judged under the order row lock)', async () => {
    const steps = connectionWith('postgres', 'Failed');
    expect(await settle('Settled')).toBe(REFUND_SETTLED_MEANWHILE);
    expect(steps).toEqual(['order for_no_key_update', 'read order', 'read refund']);
  });

  it('goes on while the refund is still Pending as committed; MySQL reads it with a locking read', async () => {
    const steps = connectionWith('mysql', 'Pending');
    expect(await settle('Failed')).toBe(true);
    expect(steps).toEqual([
      'order pessimistic_write',
      'read order',
      'refund pessimistic_read',
      'read refund',
    ]);
  });
});

/** Whether `promise` has settled yet, read without awaiting it. */
const waitState = (promise: Promise<void>) => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  return () => done;
};

// The bounds are timers: the tests move a fake clock rather than waiting on the real one.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('RefundFlights', () => {
  it('holds a notice until the refund it answers is committed, or the wait is over', async () => {
    const flights = new RefundFlights();
    flights.maxWaitMs = 50;
    flights.begin('M1');
    const done = waitState(flights.settled('M1'));
    await vi.advanceTimersByTimeAsync(5);
    expect(done()).toBe(false);
    flights.end('M1');
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(true);
    // A refund that never commits (rolled back) is waited for until maxWaitMs, not longer.
    flights.begin('M2');
    const bounded = waitState(flights.settled('M2'));
    await vi.advanceTimersByTimeAsync(49);
    expect(bounded()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(bounded()).toBe(true);
    const none = [waitState(flights.settled('unknown')), waitState(flights.settled(undefined))];
    await vi.advanceTimersByTimeAsync(0);
    expect(none.map((settled) => settled())).toEqual([true, true]);
  });
});

describe("RefundFlights and the admin's transaction", () => {
  /** Vendure's own TransactionSubscriber, fed TypeORM's commit and rollback events by hand. */
  function adminTransaction() {
    const subscriber = new TransactionSubscriber({ subscribers: [] } as unknown as DataSource);
    const runner = { isTransactionActive: true } as QueryRunner;
    const ctx = RequestContext.empty();
    setContextManager(ctx, { queryRunner: runner } as EntityManager);
    const finish = (type: 'commit' | 'rollback') => {
      (runner as { isTransactionActive: boolean }).isTransactionActive = false;
      const event = { queryRunner: runner } as never;
      if (type === 'commit') subscriber.afterTransactionCommit(event);
      else subscriber.afterTransactionRollback(event);
    };
    return { subscriber, ctx, finish };
  }

  for (const type of ['commit', 'rollback'] as const) {
    it(`holds a notice until the refund's transaction ends (${type}), not for the whole bound`, async () => {
      const { subscriber, ctx, finish } = adminTransaction();
      const flights = new RefundFlights(undefined, subscriber);
      flights.maxWaitMs = 60_000;
      flights.begin('M1', ctx);
      const done = waitState(flights.settled('M1'));
      await vi.advanceTimersByTimeAsync(10);
      expect(done()).toBe(false);
      finish(type);
      await vi.advanceTimersByTimeAsync(10);
      expect(done()).toBe(true);
    });
  }

  it("an earlier transaction's end does not end a later flight of the same merTrackNo", async () => {
    const first = adminTransaction();
    const second = adminTransaction();
    const flights = new RefundFlights(undefined, first.subscriber);
    flights.maxWaitMs = 60_000;
    flights.begin('M1', first.ctx);
    flights.begin('M1', second.ctx);
    const done = waitState(flights.settled('M1'));
    first.finish('rollback');
    await vi.advanceTimersByTimeAsync(10);
    expect(done()).toBe(false);
    flights.end('M1');
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(true);
  });

  it('outside a transaction the wait is the bound', async () => {
    const { subscriber } = adminTransaction();
    const flights = new RefundFlights(undefined, subscriber);
    flights.maxWaitMs = 30;
    flights.begin('M1', RequestContext.empty());
    const done = waitState(flights.settled('M1'));
    await vi.advanceTimersByTimeAsync(29);
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
  });
});
