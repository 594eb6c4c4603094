import { Order, RequestContext, TransactionalConnection } from '@vendure/core';
// Vendure's own transaction runner (not in its public index), so that withTransaction runs for real.
import { TransactionWrapper } from '@vendure/core/dist/connection/transaction-wrapper';
import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { onOneConnection } from '../src/service/one-connection';

/**
 * onOneConnection against Vendure's real TransactionalConnection and TransactionWrapper, over a fake
 * TypeORM DataSource that hands out recording query runners: if a Vendure version stops reading the
 * context's manager where the helper puts it, the repositories below stop coming from the phase.
 */
class RecordingRunner {
  isReleased = false;
  isTransactionActive = false;
  readonly events: string[] = [];
  readonly manager: { queryRunner: RecordingRunner; getRepository: (target: unknown) => unknown };
  constructor(readonly name: string) {
    this.manager = { queryRunner: this, getRepository: (target) => ({ runner: this.name, target }) };
  }
  async startTransaction() {
    this.mark('begin', true);
  }
  async commitTransaction() {
    this.mark('commit', false);
  }
  async rollbackTransaction() {
    this.mark('rollback', false);
  }
  private mark(event: string, active: boolean) {
    this.isTransactionActive = active;
    this.events.push(event);
  }
  async release() {
    this.isReleased = true;
    this.events.push('release');
  }
}

function setup(type: string) {
  const runners: RecordingRunner[] = [];
  const dataSource = {
    options: { type },
    createQueryRunner: () => {
      const runner = new RecordingRunner(`runner-${runners.length + 1}`);
      runners.push(runner);
      return runner;
    },
    getRepository: (target: unknown) => ({ runner: 'pool', target }),
  } as unknown as DataSource;
  const connection = new TransactionalConnection(dataSource, new TransactionWrapper(), {
    authOptions: {},
  } as never);
  return { connection, runners };
}

describe('onOneConnection (one pooled connection per request phase)', () => {
  it('gives every repository of the phase the same query runner, and releases it once at the end', async () => {
    const { connection, runners } = setup('postgres');
    const ctx = RequestContext.empty();
    const seen = await onOneConnection(connection, ctx, async (phase) => [
      connection.getRepository(phase, Order),
      connection.getRepository(phase, Order),
      connection.getRepository(ctx, Order),
    ]);
    expect(seen).toEqual([
      { runner: 'runner-1', target: Order },
      { runner: 'runner-1', target: Order },
      // The request's own context is untouched: work that outlives the phase uses the pool.
      { runner: 'pool', target: Order },
    ]);
    expect(runners).toHaveLength(1);
    expect(runners[0]?.events).toEqual(['release']);
  });

  it("opens no transaction itself; a withTransaction inside runs on the phase's runner and commits", async () => {
    const { connection, runners } = setup('postgres');
    await onOneConnection(connection, RequestContext.empty(), async (phase) => {
      const inside = await connection.withTransaction(phase, async (tx) =>
        connection.getRepository(tx, Order),
      );
      expect(inside).toEqual({ runner: 'runner-1', target: Order });
      // The statement after the transaction: same connection, no transaction open.
      expect(runners[0]?.isTransactionActive).toBe(false);
      expect(connection.getRepository(phase, Order)).toEqual({ runner: 'runner-1', target: Order });
    });
    expect(runners).toHaveLength(1);
    expect(runners[0]?.events).toEqual(['begin', 'commit', 'release']);
  });

  it('releases the connection when the work throws, and passes the error on', async () => {
    const { connection, runners } = setup('postgres');
    await expect(
      onOneConnection(connection, RequestContext.empty(), async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(runners[0]?.events).toEqual(['release']);
  });

  it('a transaction left open by the work is rolled back before the connection goes back to the pool', async () => {
    const { connection, runners } = setup('postgres');
    await onOneConnection(connection, RequestContext.empty(), async () => {
      await runners[0]?.startTransaction();
    });
    expect(runners[0]?.events).toEqual(['begin', 'rollback', 'release']);
  });

  it('inside a phase or a transaction it adds nothing: the outer connection is used', async () => {
    const { connection, runners } = setup('postgres');
    await onOneConnection(connection, RequestContext.empty(), async (phase) => {
      const inner = await onOneConnection(connection, phase, async (again) => {
        expect(again).toBe(phase);
        return connection.getRepository(again, Order);
      });
      expect(inner).toEqual({ runner: 'runner-1', target: Order });
    });
    expect(runners).toHaveLength(1);
  });

  it('on an embedded database (one connection, no pool) the work gets the context as it is', async () => {
    const { connection, runners } = setup('sqljs');
    const ctx = RequestContext.empty();
    const seen = await onOneConnection(connection, ctx, async (phase) => phase);
    expect(seen).toBe(ctx);
    expect(runners).toHaveLength(0);
  });
});
