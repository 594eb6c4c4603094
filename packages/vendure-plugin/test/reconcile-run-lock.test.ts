import { describe, expect, it } from 'vitest';
import { unlessRunning } from '../src/service/reconcile-run-lock';
import { useAttemptDatabase } from './support/attempt-database';

/**
 * One scheduled reconciliation run at a time, on an embedded database (its one process holds the flag).
 * PostgreSQL's advisory lock is shown against the real store (apps/vendure-store reconcile.test.ts).
 */
describe('unlessRunning (a scheduled run that finds the previous one still going is skipped)', () => {
  const db = useAttemptDatabase();

  it('a second run while the first is going is skipped and does nothing; once the first ends, the next runs', async () => {
    const dataSource = db.repo.manager.connection;
    let finishFirst: () => void = () => {};
    const first = unlessRunning(
      dataSource,
      () => new Promise<string>((resolve) => (finishFirst = () => resolve('first'))),
    );
    let secondRan = false;
    expect(
      await unlessRunning(dataSource, async () => {
        secondRan = true;
        return 'second';
      }),
    ).toBeUndefined();
    expect(secondRan).toBe(false);
    finishFirst();
    expect(await first).toBe('first');
    expect(await unlessRunning(dataSource, async () => 'third')).toBe('third');
  });

  it('a run that fails lets the next one run', async () => {
    const dataSource = db.repo.manager.connection;
    await expect(
      unlessRunning(dataSource, async () => {
        throw new Error('gateway down');
      }),
    ).rejects.toThrow('gateway down');
    expect(await unlessRunning(dataSource, async () => 'next')).toBe('next');
  });
});

describe('unlessRunning on PostgreSQL (the run lock is a transaction of its own)', () => {
  /** A DataSource whose one query runner answers the lock as `locked` and whose ROLLBACK may fail. */
  function postgresWith(locked: boolean, rollback: () => Promise<void>) {
    const calls: string[] = [];
    const runner = {
      connect: async () => calls.push('connect'),
      startTransaction: async () => calls.push('begin'),
      query: async (sql: string) => {
        calls.push(sql.includes('pg_try_advisory_xact_lock') ? 'lock' : sql);
        return [{ locked }];
      },
      rollbackTransaction: async () => {
        calls.push('rollback');
        await rollback();
      },
      release: async () => calls.push('release'),
    };
    return { dataSource: { options: { type: 'postgres' }, createQueryRunner: () => runner } as never, calls };
  }

  it('runs under the lock, ends its transaction (the lock with it) and gives the connection back', async () => {
    const { dataSource, calls } = postgresWith(true, async () => {});
    expect(await unlessRunning(dataSource, async () => 'ran')).toBe('ran');
    expect(calls).toEqual(['connect', 'begin', 'lock', 'rollback', 'release']);
  });

  it('held elsewhere: nothing runs, the transaction ends and the connection goes back', async () => {
    const { dataSource, calls } = postgresWith(false, async () => {});
    let ran = false;
    expect(
      await unlessRunning(dataSource, async () => {
        ran = true;
      }),
    ).toBeUndefined();
    expect(ran).toBe(false);
    expect(calls).toEqual(['connect', 'begin', 'lock', 'rollback', 'release']);
  });

  it("a connection the server ended during the run (its lock gone with it) does not turn the run's result into an error", async () => {
    const { dataSource, calls } = postgresWith(true, async () => {
      throw new Error('terminating connection due to idle-in-transaction timeout');
    });
    expect(await unlessRunning(dataSource, async () => 'ran')).toBe('ran');
    expect(calls.at(-1)).toBe('release');
  });
});
