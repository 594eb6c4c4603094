import { describe, expect, it } from 'vitest';
import {
  claimOpenSlot,
  closeUnsent,
  OPEN_ATTEMPT_BLOCK_MS,
  releaseDeadClaims,
} from '../src/service/attempt-claim';
import { useAttemptDatabase } from './support/attempt-database';
import { cardAttemptDetails } from './support/attempt-details';

/**
 * The per-order charge claim on its own, against a real sql.js database with the plugin's entity: the
 * unique (orderId, openSlot) index alone decides, so it holds for any number of server processes on
 * one database. (sql.js cannot be shared by two processes; the Vendure server tests prove it through one.)
 */
describe('attempt claim (database unique index)', () => {
  const db = useAttemptDatabase();

  const fields = (orderId: string, n: number) => ({
    ...cardAttemptDetails(orderId, ''),
    orderNo: `${orderId}-${n}`,
  });

  it('of concurrent claims for one order (even with different orderNos) exactly one wins', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((n) => claimOpenSlot(db.repo, fields('A', n))));
    const winners = results.filter((r) => r.claimed);
    expect(winners).toHaveLength(1);
    const winner = winners[0];
    if (!winner?.claimed) throw new Error('no winner');
    for (const lost of results.filter((r) => !r.claimed)) {
      expect(lost).toEqual({
        claimed: false,
        open: expect.objectContaining({ orderNo: winner.attempt.orderNo }),
      });
    }
    expect(await db.repo.count({ where: { orderId: 'A' } })).toBe(1);
  });

  it('claims of different orders do not block each other', async () => {
    const results = await Promise.all(['B', 'C'].map((id) => claimOpenSlot(db.repo, fields(id, 1))));
    expect(results.every((r) => r.claimed)).toBe(true);
  });

  it('an attempt closed without a charge frees the order; a final one never reopens it', async () => {
    const first = await claimOpenSlot(db.repo, fields('D', 1));
    if (!first.claimed) throw new Error('not claimed');
    expect((await claimOpenSlot(db.repo, fields('D', 2))).claimed).toBe(false);
    expect(await closeUnsent(db.repo, first.attempt, 'invalid city')).toBe(true);
    // A second close with the stale version changes nothing.
    expect(await closeUnsent(db.repo, first.attempt, 'again')).toBe(false);
    expect((await claimOpenSlot(db.repo, fields('D', 2))).claimed).toBe(true);
  });

  it('only a redirect attempt older than the block window is released', async () => {
    const claim = await claimOpenSlot(db.repo, fields('E', 1));
    if (!claim.claimed) throw new Error('not claimed');
    await db.repo.update({ orderNo: 'E-1' }, { status: 'redirect' });
    const created = claim.attempt.createdAt.getTime();
    expect(await releaseDeadClaims(db.repo, 'E', created + OPEN_ATTEMPT_BLOCK_MS - 1)).toBe(0);
    expect((await claimOpenSlot(db.repo, fields('E', 2))).claimed).toBe(false);
    expect(await releaseDeadClaims(db.repo, 'E', created + OPEN_ATTEMPT_BLOCK_MS + 1)).toBe(1);
    expect((await claimOpenSlot(db.repo, fields('E', 2))).claimed).toBe(true);
    // The released attempt's row stays, so a late gateway answer can still be recorded against it.
    expect(await db.repo.findOneBy({ orderNo: 'E-1' })).toMatchObject({ status: 'redirect', openSlot: null });
  });

  it('an attempt that may have taken money (started, pending, unknown) is never released by age (found by review)', async () => {
    for (const [n, status] of (['started', 'pending', 'unknown'] as const).entries()) {
      const orderId = `F${n}`;
      const claim = await claimOpenSlot(db.repo, fields(orderId, 1));
      if (!claim.claimed) throw new Error('not claimed');
      await db.repo.update({ orderNo: `${orderId}-1` }, { status });
      const muchLater = claim.attempt.createdAt.getTime() + 100 * OPEN_ATTEMPT_BLOCK_MS;
      expect(await releaseDeadClaims(db.repo, orderId, muchLater)).toBe(0);
      expect((await claimOpenSlot(db.repo, fields(orderId, 2))).claimed).toBe(false);
    }
  });
});
