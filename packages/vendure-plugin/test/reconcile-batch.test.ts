import { describe, expect, it } from 'vitest';
import type { AttemptStatus } from '../src/entity/payment-attempt.entity';
import { agedOutAttempts, attemptsToReconcile, movedToBackOfBatch } from '../src/service/reconcile-batch';
import { useAttemptDatabase } from './support/attempt-database';

const HOUR = 60 * 60 * 1000;

/**
 * Which attempts one reconciliation run reads, against a real sql.js database: abandoned gateway pages
 * (the gateway lists them pending, so they stay `redirect` for days) must not crowd out the attempts
 * that block an order or may hold paid money.
 */
describe('the attempts a reconciliation run reads', () => {
  const db = useAttemptDatabase();
  const now = Date.now();

  async function attempt(channelId: string, n: number, status: AttemptStatus, hoursAgo: number) {
    return db.repo.save(
      db.repo.create({
        orderNo: `${channelId}-${n}`,
        orderId: `${channelId}${n}`,
        orderCode: `${channelId}${n}`,
        channelId,
        paymentMethodCode: 'gatewaykit-card',
        mode: 'hosted',
        amount: 1000,
        orderAmount: '10.00',
        currency: 'USD',
        status,
        tradeNo: null,
        createdAt: new Date(now - hoursAgo * HOUR),
        // Last written when it was made (its answer came at once), as a row the run has not read yet.
        updatedAt: new Date(now - hoursAgo * HOUR),
      }),
    );
  }

  const settings = (channelId: string, batchSize: number) => ({
    now,
    afterMs: 0.25 * HOUR,
    maxAgeMs: 7 * 24 * HOUR,
    batchSize,
    channelId,
  });

  it('attack: more abandoned gateway pages than a batch, older than the owed attempts, do not starve them', async () => {
    for (let n = 1; n <= 5; n++) await attempt('S', n, 'redirect', 100 - n);
    await attempt('S', 6, 'unknown', 2);
    await attempt('S', 7, 'pending', 1);
    await attempt('S', 8, 'started', 3);
    const read = (await attemptsToReconcile(db.repo, settings('S', 3))).map((a) => a.orderNo);
    // The owed attempts, oldest first, then the newest pages.
    expect(read).toEqual(['S-8', 'S-6', 'S-7', 'S-5', 'S-4', 'S-3']);
  });

  it('attack: owed attempts that stay owed run after run (more than a batch) do not keep a newer one from being read', async () => {
    // Acknowledged by the gateway but listed nowhere: each run reads them and leaves them owed.
    for (let n = 1; n <= 3; n++) await attempt('R', n, 'pending', 50 - n);
    // Its success callback was lost: only a read of the gateway settles it.
    await attempt('R', 4, 'unknown', 2);
    const run = async () => {
      const read = await attemptsToReconcile(db.repo, { ...settings('R', 2), now: Date.now() });
      const owed = read.filter((a) => a.status !== 'redirect');
      for (const row of owed) await movedToBackOfBatch(db.repo, row.id);
      return owed.map((a) => a.orderNo);
    };
    expect(await run()).toEqual(['R-1', 'R-2']);
    expect(await run()).toEqual(['R-3', 'R-4']);
    // Then round again, those read longest ago first.
    expect(await run()).toEqual(['R-1', 'R-2']);
  });

  it('honest: each kind is capped at the batch size; final, too young, too old and other channels are left out', async () => {
    for (let n = 1; n <= 4; n++) await attempt('T', n, 'unknown', 10 - n);
    await attempt('T', 5, 'redirect', 2);
    await attempt('T', 6, 'succeeded', 2);
    await attempt('T', 7, 'failed', 2);
    await attempt('T', 8, 'pending', 0.1);
    await attempt('T', 9, 'unknown', 8 * 24);
    await attempt('U', 1, 'unknown', 2);
    const read = (await attemptsToReconcile(db.repo, settings('T', 2))).map((a) => a.orderNo);
    expect(read).toEqual(['T-1', 'T-2', 'T-5']);
    const all = (await attemptsToReconcile(db.repo, { ...settings('T', 10), channelId: undefined })).map(
      (a) => a.orderNo,
    );
    expect(all).toEqual(expect.arrayContaining(['T-1', 'T-2', 'T-3', 'T-4', 'T-5', 'U-1']));
    for (const left of ['T-6', 'T-7', 'T-8', 'T-9']) expect(all).not.toContain(left);
  });

  it('attempts past maxAgeMs still owed or on a page are handed over within a week; final, younger and much older ones are not', async () => {
    await attempt('A', 1, 'pending', 7 * 24 + 2);
    await attempt('A', 2, 'redirect', 7 * 24 + 20);
    await attempt('A', 3, 'unknown', 9 * 24);
    await attempt('A', 4, 'failed', 7 * 24 + 2);
    await attempt('A', 5, 'succeeded', 7 * 24 + 2);
    await attempt('A', 6, 'pending', 6 * 24);
    await attempt('A', 7, 'pending', 15 * 24);
    await attempt('B', 1, 'pending', 7 * 24 + 2);
    const handed = (await agedOutAttempts(db.repo, settings('A', 10))).map((a) => a.orderNo);
    // Newest first (those said before do not crowd out a new one), for a week past maxAgeMs (runs
    // missed for days still find them).
    expect(handed).toEqual(['A-1', 'A-2', 'A-3']);
    // A full batch takes the newest.
    expect((await agedOutAttempts(db.repo, settings('A', 1))).map((a) => a.orderNo)).toEqual(['A-1']);
  });
});
