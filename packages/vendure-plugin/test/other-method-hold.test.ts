import { describe, expect, it } from 'vitest';
import { OPEN_SLOT } from '../src/entity/payment-attempt.entity';
import { OPEN_ATTEMPT_BLOCK_MS, OTHER_METHOD_HOLD_MS } from '../src/service/attempt-claim';
import { claimNextAttempt } from '../src/service/attempt-guard';
import { holdOrderForOtherMethod } from '../src/service/other-method-hold';
import { useAttemptDatabase } from './support/attempt-database';
import { cardAttemptDetails } from './support/attempt-details';

/**
 * Another method's payment against the gateway's charges for one order, on a real sql.js database:
 * the unique open-slot index decides which starts, whatever process asks (docs/SECURITY.md §5).
 */
describe('another payment method holding the order', () => {
  const db = useAttemptDatabase();

  const order = (id: string) => ({ id, code: `HOLD${id}`, currencyCode: 'USD' });
  const details = (orderId: string) => cardAttemptDetails(orderId, 'HOLD');
  const hold = (orderId: string, now?: number) =>
    holdOrderForOtherMethod(db.repo, order(orderId), '1', 'bench-noop', now);

  it('attack: while another method pays, a gateway charge for the order cannot start (the race of two tabs)', async () => {
    const held = await hold('1');
    expect(held.held).toBe(true);
    const refused = await claimNextAttempt(db.repo, details('1'));
    expect(refused).toEqual({ claimed: false, orderNo: 'HOLD1-1', otherMethod: true, unapplied: false });
    // Nothing was stored as a gateway attempt.
    expect(await db.repo.count({ where: { orderId: '1', status: 'started' } })).toBe(0);

    // Its answer in (declined, say): the hold goes and the card attempt is numbered as the first.
    if (held.held) await held.release();
    expect(await db.repo.count({ where: { orderId: '1' } })).toBe(0);
    const next = await claimNextAttempt(db.repo, details('1'));
    expect(next).toMatchObject({ claimed: true, orderNo: 'HOLD1-1' });
  });

  it('attack: concurrent holds and gateway claims for one order: exactly one of them wins', async () => {
    const results = await Promise.all([
      hold('2'),
      claimNextAttempt(db.repo, details('2')),
      hold('2'),
      claimNextAttempt(db.repo, details('2')),
    ]);
    const winners = results.filter((r) => ('held' in r ? r.held : r.claimed));
    expect(winners).toHaveLength(1);
    expect(await db.repo.count({ where: { orderId: '2', openSlot: OPEN_SLOT } })).toBe(1);
  });

  it('a gateway charge holding the slot, or owed an answer without it, refuses the other method', async () => {
    const claim = await claimNextAttempt(db.repo, details('3'));
    expect(claim.claimed).toBe(true);
    const refused = await hold('3');
    expect(refused).toMatchObject({ held: false, by: { orderNo: 'HOLD3-1', status: 'started' } });

    // A page that released the slot after its window, then turned pending: still owed, still refused.
    await db.repo.update({ orderNo: 'HOLD3-1' }, { status: 'pending', openSlot: null });
    const owed = await hold('3');
    expect(owed).toMatchObject({ held: false, by: { orderNo: 'HOLD3-1', status: 'pending' } });
    // The hold taken for that check is gone again: the order is not left blocked.
    expect(await db.repo.count({ where: { orderId: '3', status: 'held' } })).toBe(0);
  });

  it('a gateway page past its window no longer keeps the order from the other method', async () => {
    const claim = await claimNextAttempt(db.repo, details('4'));
    if (!claim.claimed) throw new Error('not claimed');
    await db.repo.update({ orderNo: 'HOLD4-1' }, { status: 'redirect' });
    const opened = claim.attempt.createdAt.getTime();
    expect((await hold('4', opened + OPEN_ATTEMPT_BLOCK_MS - 1_000)).held).toBe(false);
    expect((await hold('4', opened + OPEN_ATTEMPT_BLOCK_MS + 1_000)).held).toBe(true);
  });

  it('a hold left by a killed request expires; a live one keeps the order', async () => {
    const first = await hold('5');
    if (!first.held) throw new Error('not held');
    const row = await db.repo.findOneByOrFail({ orderId: '5', status: 'held' });
    const taken = row.createdAt.getTime();
    expect((await claimNextAttempt(db.repo, details('5'))).claimed).toBe(false);
    expect(await hold('5', taken + OTHER_METHOD_HOLD_MS - 1_000)).toMatchObject({
      held: false,
      by: { status: 'held' },
    });
    expect((await hold('5', taken + OTHER_METHOD_HOLD_MS + 1_000)).held).toBe(true);
  });

  it('a read failing after the hold was taken lets go of the order at once (found by review)', async () => {
    let failNextRead = true;
    const flaky = new Proxy(db.repo, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'findOne' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (failNextRead) {
            failNextRead = false;
            return Promise.reject(new Error('connection reset'));
          }
          return value.apply(target, args);
        };
      },
    });
    await expect(holdOrderForOtherMethod(flaky, order('6'), '1', 'bench-noop')).rejects.toThrow(
      'connection reset',
    );
    expect(await db.repo.count({ where: { orderId: '6' } })).toBe(0);
    expect((await claimNextAttempt(db.repo, details('6'))).claimed).toBe(true);
  });
});
