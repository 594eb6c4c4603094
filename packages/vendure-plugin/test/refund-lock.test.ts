import { RequestContext, TransactionSubscriber } from '@vendure/core';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { describe, expect, it, vi } from 'vitest';
import { setContextManager } from '../src/service/context-manager';
import { RefundLock } from '../src/service/refund-lock';

type Row = { id: number; paymentId: number; state: string; total: number };
type Handler = (event: unknown) => unknown;

/**
 * The refund section over a fake embedded database whose Refund table is an array, and a fake event
 * bus that hands over the blocking handler: what each section reads is what the saves before it left.
 */
function embedded() {
  const table: Row[] = [];
  const reads: number[][] = [];
  let handler: Handler | undefined;
  const dataSource = { options: { type: 'sqljs' } } as unknown as DataSource;
  const connection = {
    rawConnection: dataSource,
    getRepository: () => ({
      find: async ({ where }: { where: { paymentId: number } }) => {
        const rows = table.filter((r) => r.paymentId === where.paymentId).map((r) => ({ ...r }));
        reads.push(rows.map((r) => r.id));
        return rows;
      },
    }),
  };
  const eventBus = {
    registerBlockingEventHandler: (options: { handler: Handler }) => {
      handler = options.handler;
    },
  };
  const lock = new RefundLock(
    connection as never,
    new TransactionSubscriber({ subscribers: [] } as unknown as DataSource),
    eventBus as never,
  );
  lock.onApplicationBootstrap();
  /** What Vendure does after createRefund returned: save the Refund, publish RefundEvent `created`. */
  const save = async (paymentId: number, total: number) => {
    const refund = { id: table.length + 1, paymentId, state: 'Pending', total };
    table.push(refund);
    await handler?.({ refund: { ...refund, payment: { id: paymentId } }, type: 'created' });
  };
  return { lock, table, reads, save };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((r) => setTimeout(r, 10));

describe('RefundLock on an embedded database', () => {
  it("runs one refund of a payment at a time, and the next reads the Refund the previous one's request saved", async () => {
    const { lock, reads, save } = embedded();
    const ctx = RequestContext.empty();
    const order: string[] = [];
    const first = lock.forPayment(ctx, { paymentId: 7, orderId: 10 }, async (refunds) => {
      order.push(`first sees ${refunds.length}`);
      await settle();
      return 'R1';
    });
    const second = lock.forPayment(ctx, { paymentId: 7, orderId: 10 }, async (refunds) => {
      order.push(`second sees ${refunds.length}`);
      return `R${refunds.length + 1}`;
    });
    expect(await first).toBe('R1');
    await settle();
    // The first section's Refund is not saved yet: the second has not started.
    expect(order).toEqual(['first sees 0']);
    await save(7, 500);
    expect(await second).toBe('R2');
    expect(order).toEqual(['first sees 0', 'second sees 1']);
    expect(reads).toEqual([[], [1]]);
  });

  it('another payment is not held up, and a failing section frees its payment at once', async () => {
    const { lock } = embedded();
    const ctx = RequestContext.empty();
    await lock.forPayment(ctx, { paymentId: 1, orderId: 10 }, async () => 'held');
    // Payment 1's Refund is never saved in this test: payment 2 runs anyway.
    expect(await lock.forPayment(ctx, { paymentId: 2, orderId: 10 }, async () => 'other')).toBe('other');
    lock.maxHoldMs = 20;
    await expect(
      lock.forPayment(ctx, { paymentId: 3, orderId: 10 }, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await lock.forPayment(ctx, { paymentId: 3, orderId: 10 }, async () => 'next')).toBe('next');
  });

  it("ends the hold when the admin's transaction ends (a rollback saves no Refund), or at the bound", async () => {
    const { lock } = embedded();
    const subscriber = new TransactionSubscriber({ subscribers: [] } as unknown as DataSource);
    (lock as unknown as { transactions: TransactionSubscriber }).transactions = subscriber;
    const runner = { isTransactionActive: true } as QueryRunner;
    const ctx = RequestContext.empty();
    setContextManager(ctx, { queryRunner: runner } as EntityManager);
    await lock.forPayment(ctx, { paymentId: 5, orderId: 10 }, async () => 'rolled back');
    let next = false;
    const after = lock.forPayment(RequestContext.empty(), { paymentId: 5, orderId: 10 }, async () => {
      next = true;
    });
    await settle();
    expect(next).toBe(false);
    (runner as { isTransactionActive: boolean }).isTransactionActive = false;
    subscriber.afterTransactionRollback({ queryRunner: runner } as never);
    await after;
    expect(next).toBe(true);

    // Outside a transaction nothing ends the hold but its bound (a fake clock here, not a wait).
    vi.useFakeTimers();
    try {
      lock.maxHoldMs = 30;
      await lock.forPayment(RequestContext.empty(), { paymentId: 6, orderId: 10 }, async () => 'never saved');
      let bounded = false;
      const later = lock.forPayment(RequestContext.empty(), { paymentId: 6, orderId: 10 }, async () => {
        bounded = true;
      });
      await vi.advanceTimersByTimeAsync(29);
      expect(bounded).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await later;
      expect(bounded).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('RefundLock on a server database', () => {
  /** A server database whose query builders record what they are asked, in the admin's transaction. */
  function server(type: string) {
    const calls: string[] = [];
    const builder = (entity: string) => {
      const qb = {
        select: () => qb,
        where: (sql: string, params: { id: unknown }) => {
          calls.push(`${entity} ${sql} ${String(params.id)}`);
          return qb;
        },
        orderBy: () => qb,
        setLock: (mode: string) => {
          calls.push(`${entity} lock ${mode}`);
          return qb;
        },
        getOne: async () => {
          calls.push(`${entity} read`);
          return { id: 7 };
        },
        getMany: async () => {
          calls.push(`${entity} read`);
          return [{ id: 1, state: 'Pending', total: 500 }];
        },
      };
      return qb;
    };
    const runner = { isTransactionActive: true } as QueryRunner;
    const ctx = RequestContext.empty();
    setContextManager(ctx, { queryRunner: runner } as EntityManager);
    const usedContexts: unknown[] = [];
    const connection = {
      rawConnection: { options: { type } },
      getRepository: (used: unknown, target: { name: string }) => {
        usedContexts.push(used);
        return { createQueryBuilder: () => builder(target.name) };
      },
    };
    const lock = new RefundLock(connection as never, {} as never, {} as never);
    return { lock, ctx, calls, usedContexts };
  }

  it("PostgreSQL: locks the order's row, then reads the payment's refunds as committed, in the admin's transaction", async () => {
    const { lock, ctx, calls, usedContexts } = server('postgres');
    const seen = await lock.forPayment(ctx, { paymentId: 7, orderId: 10 }, async (refunds) =>
      refunds.map((r) => r.id),
    );
    expect(seen).toEqual([1]);
    // No lock on the Refund rows: a notice settling an earlier refund of the payment never waits on it.
    expect(calls).toEqual([
      'Order order.id = :id 10',
      'Order lock for_no_key_update',
      'Order read',
      'Refund refund.paymentId = :id 7',
      'Refund read',
    ]);
    expect(usedContexts.every((used) => used === ctx)).toBe(true);
  });

  it("MySQL: the refunds are read with a shared locking read, which sees past the transaction's snapshot", async () => {
    const { lock, ctx, calls } = server('mysql');
    await lock.forPayment(ctx, { paymentId: 7, orderId: 10 }, async () => undefined);
    expect(calls).toEqual([
      'Order order.id = :id 10',
      'Order lock pessimistic_write',
      'Order read',
      'Refund refund.paymentId = :id 7',
      'Refund lock pessimistic_read',
      'Refund read',
    ]);
  });
});
