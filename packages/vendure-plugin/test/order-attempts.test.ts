import { recordOutcome } from '@gatewaykit/core';
import { RequestContext, type TransactionalConnection } from '@vendure/core';
import { describe, expect, it, vi } from 'vitest';
import { type GatewaykitPaymentAttempt, OPEN_SLOT } from '../src/entity/payment-attempt.entity';
import { OPEN_ATTEMPT_BLOCK_MS, OTHER_METHOD_HOLD_MS } from '../src/service/attempt-claim';
import { claimNextAttempt } from '../src/service/attempt-guard';
import { OrderAttempts, type OrderEffects } from '../src/service/order-attempts';
import { holdOrderForOtherMethod, OrderHeldByOtherMethodError } from '../src/service/other-method-hold';
import { UNAPPLIED_MESSAGE } from '../src/service/unapplied-charge';
import { useAttemptDatabase } from './support/attempt-database';
import { cardAttemptDetails } from './support/attempt-details';

describe('OrderAttempts.save', () => {
  it('refuses to move an attempt outside its exclusive section: no update, no payment', async () => {
    const getRepository = vi.fn();
    const applyToOrder = vi.fn();
    const attempts = new OrderAttempts(
      RequestContext.empty(),
      'gatewaykit-card',
      { getRepository } as unknown as TransactionalConnection,
      { applyToOrder, note: vi.fn(), notice: vi.fn() },
    );
    const row = { orderNo: 'CODE-1', version: 0 } as GatewaykitPaymentAttempt;
    await expect(
      attempts.save(
        { orderNo: 'CODE-1', orderAmount: '10.00', currency: 'USD', outcome: undefined, row },
        { orderNo: 'CODE-1', status: 'succeeded', tradeNo: 'T1' },
      ),
    ).rejects.toThrow('saved outside its exclusive section');
    expect(getRepository).not.toHaveBeenCalled();
    expect(applyToOrder).not.toHaveBeenCalled();
  });
});

/** Against a real sql.js database: what a recorded success leaves of the order's open slot. */
describe('OrderAttempts.save of a success', () => {
  const db = useAttemptDatabase();

  /**
   * The store over the test database; `unapplied` is what the recorder says of the payment, `applyToOrder`
   * (when given) stands for the recorder.
   */
  function store(
    unapplied: string | undefined,
    applyToOrder: OrderEffects['applyToOrder'] = vi.fn(async () => unapplied),
  ) {
    const connection = {
      rawConnection: db.repo.manager.connection,
      withTransaction: (ctx: RequestContext, work: (tx: RequestContext) => Promise<unknown>) => work(ctx),
      getRepository: () => db.repo,
    } as unknown as TransactionalConnection;
    const ctx = new RequestContext({
      apiType: 'admin',
      channel: { id: '1', defaultLanguageCode: 'en', defaultCurrencyCode: 'USD' } as never,
      isAuthorized: true,
      authorizedAsOwnerOnly: false,
    });
    return new OrderAttempts(ctx, 'gatewaykit-card', connection, {
      applyToOrder,
      note: vi.fn(),
      notice: vi.fn(),
    });
  }

  const details = (orderId: string) => cardAttemptDetails(orderId, 'SAVE');

  async function started(orderId: string) {
    const next = await claimNextAttempt(db.repo, details(orderId));
    if (!next.claimed) throw new Error('not claimed');
    return next.orderNo;
  }

  const success = (orderNo: string) => ({
    orderNo,
    status: 'succeeded' as const,
    tradeNo: `T-${orderNo}`,
    amount: '10.00',
    currency: 'USD',
  });

  it('a success on the order frees its slot', async () => {
    const orderNo = await started('1');
    await recordOutcome(store(undefined), success(orderNo));
    expect(await db.repo.findOneByOrFail({ orderNo })).toMatchObject({ status: 'succeeded', openSlot: null });
  });

  it('attack: a success Vendure refused keeps the slot in the same recording, saying why, so no second charge starts', async () => {
    const orderNo = await started('2');
    const decision = await recordOutcome(store('coupon removed'), success(orderNo));
    expect(decision.kind).toBe('changed');
    expect(await db.repo.findOneByOrFail({ orderNo })).toMatchObject({
      status: 'succeeded',
      openSlot: OPEN_SLOT,
      message: `${UNAPPLIED_MESSAGE}: coupon removed`,
    });
    expect(await claimNextAttempt(db.repo, details('2'))).toMatchObject({ claimed: false, unapplied: true });
  });

  /** A gateway page released past its window (attempt-claim.ts): it no longer holds the order's slot. */
  async function released(orderId: string) {
    const orderNo = await started(orderId);
    const createdAt = new Date(Date.now() - OPEN_ATTEMPT_BLOCK_MS - 60_000);
    await db.repo.update({ orderNo }, { status: 'redirect', openSlot: null, createdAt });
    return orderNo;
  }

  it("a late success (its page released) takes the order's slot back while its payment is added, and frees it once added", async () => {
    const orderNo = await released('3');
    const slotWhileAdding: (string | null)[] = [];
    const applyToOrder = vi.fn(async () => {
      slotWhileAdding.push((await db.repo.findOneByOrFail({ orderNo })).openSlot);
      return undefined;
    });
    expect((await recordOutcome(store(undefined, applyToOrder), success(orderNo))).kind).toBe('changed');
    expect(slotWhileAdding).toEqual([OPEN_SLOT]);
    expect(await db.repo.findOneByOrFail({ orderNo })).toMatchObject({ status: 'succeeded', openSlot: null });
  });

  it('attack: a late success meeting another method in flight (its hold) records nothing: the delivery fails and comes again once that payment answered', async () => {
    const orderNo = await released('4');
    const hold = await holdOrderForOtherMethod(
      db.repo,
      { id: '4', code: 'SAVE4', currencyCode: 'USD' },
      '1',
      'bench-noop',
    );
    if (!hold.held) throw new Error('not held');
    const applyToOrder = vi.fn(async () => undefined);
    await expect(recordOutcome(store(undefined, applyToOrder), success(orderNo))).rejects.toThrow(
      OrderHeldByOtherMethodError,
    );
    expect(applyToOrder).not.toHaveBeenCalled();
    expect(await db.repo.findOneByOrFail({ orderNo })).toMatchObject({ status: 'redirect', openSlot: null });
    // The other payment answered (its hold released): the next delivery is recorded.
    await hold.release();
    expect((await recordOutcome(store(undefined, applyToOrder), success(orderNo))).kind).toBe('changed');
    expect(applyToOrder).toHaveBeenCalledTimes(1);
  });

  it('a hold left by a killed request (past OTHER_METHOD_HOLD_MS) keeps no late success waiting: it is freed and the success recorded', async () => {
    const orderNo = await released('7');
    const hold = await holdOrderForOtherMethod(
      db.repo,
      { id: '7', code: 'SAVE7', currencyCode: 'USD' },
      '1',
      'bench-noop',
    );
    if (!hold.held) throw new Error('not held');
    const createdAt = new Date(Date.now() - OTHER_METHOD_HOLD_MS - 60_000);
    await db.repo.update({ orderId: '7', status: 'held' }, { createdAt });
    expect((await recordOutcome(store(undefined), success(orderNo))).kind).toBe('changed');
    expect(await db.repo.findOneByOrFail({ orderNo })).toMatchObject({ status: 'succeeded', openSlot: null });
    expect(await db.repo.findOneByOrFail({ orderId: '7', status: 'held' })).toMatchObject({ openSlot: null });
  });

  it('attack: once a late success took the slot back, another method cannot hold the order', async () => {
    const orderNo = await released('5');
    let holdWhileAdding: Awaited<ReturnType<typeof holdOrderForOtherMethod>> | undefined;
    const applyToOrder = vi.fn(async () => {
      holdWhileAdding = await holdOrderForOtherMethod(
        db.repo,
        { id: '5', code: 'SAVE5', currencyCode: 'USD' },
        '1',
        'bench-noop',
      );
      return 'order is already in state PaymentSettled';
    });
    await recordOutcome(store(undefined, applyToOrder), success(orderNo));
    expect(holdWhileAdding).toMatchObject({ held: false, by: { orderNo } });
    // Refused by Vendure: the success keeps the slot it took back (unapplied-charge.ts).
    expect(await db.repo.findOneByOrFail({ orderNo })).toMatchObject({
      status: 'succeeded',
      openSlot: OPEN_SLOT,
    });
  });

  it("a late success while another gateway attempt holds the order's slot leaves the slot with it", async () => {
    const orderNo = await released('6');
    const next = await started('6');
    await recordOutcome(store('order is already in state PaymentSettled'), success(orderNo));
    expect(await db.repo.findOneByOrFail({ orderNo })).toMatchObject({ status: 'succeeded', openSlot: null });
    expect(await db.repo.findOneByOrFail({ orderNo: next })).toMatchObject({ openSlot: OPEN_SLOT });
  });
});
