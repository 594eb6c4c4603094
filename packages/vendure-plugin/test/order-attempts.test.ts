import { recordOutcome } from '@gatewaykit/core';
import { RequestContext, type TransactionalConnection } from '@vendure/core';
import { describe, expect, it, vi } from 'vitest';
import { type GatewaykitPaymentAttempt, OPEN_SLOT } from '../src/entity/payment-attempt.entity';
import { claimNextAttempt } from '../src/service/attempt-guard';
import { OrderAttempts } from '../src/service/order-attempts';
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

  /** The store over the test database; `unapplied` is what the recorder says of the payment. */
  function store(unapplied: string | undefined) {
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
      applyToOrder: vi.fn(async () => unapplied),
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
});
