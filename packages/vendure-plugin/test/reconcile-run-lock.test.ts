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
