import { GatewayValidationError } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { OPEN_SLOT } from '../src/entity/payment-attempt.entity';
import { OPEN_ATTEMPT_BLOCK_MS } from '../src/service/attempt-claim';
import { attemptMode, claimNextAttempt, flowOfAttemptMode, sendClaimed } from '../src/service/attempt-guard';
import { useAttemptDatabase } from './support/attempt-database';
import { cardAttemptDetails } from './support/attempt-details';

/** Against a real sql.js database with the plugin's entity: the unique open-slot index decides. */
describe('attempt guard', () => {
  const db = useAttemptDatabase();

  const details = (orderId: string) => cardAttemptDetails(orderId, 'CODE');

  async function claimed(orderId: string) {
    const next = await claimNextAttempt(db.repo, details(orderId));
    if (!next.claimed) throw new Error(`not claimed: ${next.orderNo}`);
    return next;
  }

  it('numbers the first attempt CODE-1 and stores it started, holding the open slot', async () => {
    const next = await claimed('1');
    expect(next.orderNo).toBe('CODE1-1');
    expect(next.attempt).toMatchObject({
      orderNo: 'CODE1-1',
      status: 'started',
      openSlot: OPEN_SLOT,
      amount: 1000,
    });
  });

  it('attack: a page released after its window that turned pending since refuses the next gateway attempt, though it holds no slot (found by review)', async () => {
    const first = await claimed('P');
    await db.repo.update(
      { id: first.attempt.id },
      { status: 'redirect', createdAt: new Date(Date.now() - OPEN_ATTEMPT_BLOCK_MS - 60_000) },
    );
    // The shopper starts again: the page is released, CODE-2 holds the order.
    const second = await claimed('P');
    expect(second.orderNo).toBe('CODEP-2');
    // The page's payment turns pending (a late callback or a held-back return) without the slot, and
    // CODE-2 is declined, which frees the slot.
    await db.repo.update({ id: first.attempt.id }, { status: 'pending' });
    await db.repo.update({ id: second.attempt.id }, { status: 'failed', openSlot: null });
    expect(await claimNextAttempt(db.repo, details('P'))).toEqual({
      claimed: false,
      orderNo: 'CODEP-1',
      otherMethod: false,
      unapplied: false,
    });
    // The refused claim was closed unsent and holds nothing.
    expect(await db.repo.findOneBy({ orderNo: 'CODEP-3' })).toMatchObject({
      status: 'failed',
      openSlot: null,
      message: 'attempt CODEP-1 may still be charged; nothing was sent',
    });
    // Once the page's payment is answered, the order can be paid again.
    await db.repo.update({ id: first.attempt.id }, { status: 'failed' });
    expect((await claimNextAttempt(db.repo, details('P'))).orderNo).toBe('CODEP-4');
  });

  it('refuses a second attempt while one is open, naming the open one', async () => {
    await claimed('2');
    expect(await claimNextAttempt(db.repo, details('2'))).toEqual({
      claimed: false,
      orderNo: 'CODE2-1',
      otherMethod: false,
      unapplied: false,
    });
    expect(await db.repo.count({ where: { orderId: '2' } })).toBe(1);
  });

  it('after an unsent attempt closes, numbers the next one after every row (an orderNo is never reused)', async () => {
    const first = await claimed('3');
    const refused = await sendClaimed(db.repo, first.attempt, async () => {
      throw new GatewayValidationError('Invalid city', [{ path: 'city', message: 'required' }]);
    });
    expect(refused).toEqual({ sent: false, reason: 'Invalid city' });
    const closed = await db.repo.findOneByOrFail({ orderNo: 'CODE3-1' });
    expect(closed).toMatchObject({ status: 'failed', openSlot: null, message: 'Invalid city' });
    expect((await claimed('3')).orderNo).toBe('CODE3-2');
  });

  it('frees an expired redirect before numbering, never a started attempt', async () => {
    const first = await claimed('4');
    const expired = new Date(Date.now() - OPEN_ATTEMPT_BLOCK_MS - 60_000);
    await db.repo.update({ id: first.attempt.id }, { createdAt: expired });
    expect((await claimNextAttempt(db.repo, details('4'))).claimed).toBe(false);
    await db.repo.update({ id: first.attempt.id }, { status: 'redirect' });
    expect((await claimed('4')).orderNo).toBe('CODE4-2');
  });

  it('keeps the claim when the send fails in a way that may have reached the gateway', async () => {
    const first = await claimed('5');
    await expect(
      sendClaimed(db.repo, first.attempt, async () => {
        throw new Error('socket hang up');
      }),
    ).rejects.toThrow('socket hang up');
    expect(await db.repo.findOneByOrFail({ orderNo: 'CODE5-1' })).toMatchObject({
      status: 'started',
      openSlot: OPEN_SLOT,
    });
    expect(await sendClaimed(db.repo, first.attempt, async () => 'outcome')).toEqual({
      sent: true,
      outcome: 'outcome',
    });
  });
});

describe('attemptMode', () => {
  it('labels local attempts with their method', () => {
    expect(attemptMode({ mode: 'local', localMethod: 'Alipay' })).toBe('local:Alipay');
    expect(attemptMode({ mode: 'card' })).toBe('card');
    expect(attemptMode({ mode: 'hosted' })).toBe('hosted');
  });
});

describe('flowOfAttemptMode', () => {
  it('reads the flow back from every mode attemptMode writes (a local attempt is local, found by review)', () => {
    for (const config of [
      { mode: 'local', localMethod: 'Alipay' },
      { mode: 'card' },
      { mode: 'hosted' },
    ] as const) {
      expect(flowOfAttemptMode(attemptMode(config))).toBe(config.mode);
    }
    expect(flowOfAttemptMode('something-else')).toBeUndefined();
  });
});
