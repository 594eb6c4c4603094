import { describe, expect, it } from 'vitest';
import { OPEN_SLOT } from '../src/entity/payment-attempt.entity';
import { claimNextAttempt } from '../src/service/attempt-guard';
import { holdOrderForOtherMethod } from '../src/service/other-method-hold';
import { isUnappliedCharge, releaseUnappliedCharge } from '../src/service/unapplied-charge';
import { useAttemptDatabase } from './support/attempt-database';
import { cardAttemptDetails } from './support/attempt-details';

/**
 * A charge Vendure could not add to its order keeps the order's open slot, on a real sql.js database:
 * nothing charges the order again until the merchant releases it, once (docs/SECURITY.md §6).
 */
describe('a charge that could not be applied to its order', () => {
  const db = useAttemptDatabase();

  const details = (orderId: string) => cardAttemptDetails(orderId, 'UNAP');

  /** Attempt 1 of the order, succeeded and (as the recorder leaves it when Vendure refused it) still open. */
  async function unapplied(orderId: string) {
    const next = await claimNextAttempt(db.repo, details(orderId));
    if (!next.claimed) throw new Error('not claimed');
    await db.repo.update({ id: next.attempt.id }, { status: 'succeeded', version: 1 });
    return db.repo.findOneByOrFail({ id: next.attempt.id });
  }

  it('is a succeeded attempt that still holds the slot; a paid one or an open one is not', () => {
    expect(isUnappliedCharge({ status: 'succeeded', openSlot: OPEN_SLOT })).toBe(true);
    expect(isUnappliedCharge({ status: 'succeeded', openSlot: null })).toBe(false);
    expect(isUnappliedCharge({ status: 'unknown', openSlot: OPEN_SLOT })).toBe(false);
  });

  it('attack: a new gateway charge and another method are refused while it holds the order', async () => {
    const row = await unapplied('1');
    expect(await claimNextAttempt(db.repo, details('1'))).toEqual({
      claimed: false,
      orderNo: 'UNAP1-1',
      otherMethod: false,
      unapplied: true,
    });
    const other = await holdOrderForOtherMethod(
      db.repo,
      { id: '1', code: 'UNAP1', currencyCode: 'USD' },
      '1',
      'bench-noop',
    );
    expect(other).toMatchObject({ held: false, by: { id: row.id } });
    expect(await db.repo.count({ where: { orderId: '1' } })).toBe(1);
  });

  it('attack: two releases of one read free the order once; it stays succeeded and the order can be charged again', async () => {
    const row = await unapplied('2');
    const results = await Promise.all([
      releaseUnappliedCharge(db.repo, { ...row }),
      releaseUnappliedCharge(db.repo, { ...row }),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect(await db.repo.findOneByOrFail({ id: row.id })).toMatchObject({
      status: 'succeeded',
      openSlot: null,
    });
    expect(await claimNextAttempt(db.repo, details('2'))).toMatchObject({
      claimed: true,
      orderNo: 'UNAP2-2',
    });
  });

  it('a paid attempt (slot already free) is never released', async () => {
    const row = await unapplied('3');
    await db.repo.update({ id: row.id }, { openSlot: null, version: 2 });
    expect(await releaseUnappliedCharge(db.repo, await db.repo.findOneByOrFail({ id: row.id }))).toBe(false);
  });
});
