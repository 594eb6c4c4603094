import type { PaymentOutcome } from '@gatewaykit/core';
import { recordOutcome } from '@gatewaykit/core';
import { Logger, RequestContext, type TransactionalConnection } from '@vendure/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AttemptStatus,
  GatewaykitPaymentAttempt,
  OPEN_SLOT,
} from '../src/entity/payment-attempt.entity';
import { OrderAttempts } from '../src/service/order-attempts';
import { ReconcileService } from '../src/service/reconcile.service';
import { useAttemptDatabase } from './support/attempt-database';

const MINUTE = 60_000;

/**
 * The reconciliation reads its batch of attempt rows, then asks the gateway about each in turn: a row
 * answered in between (a late `pending` callback with its trade id) must not be failed from the batch's
 * read, which would free its order for a second charge (found by review). Against a real sql.js
 * database through the plugin's own OrderAttempts store.
 */
describe('reconciliation of an attempt answered while the gateway is asked', () => {
  const db = useAttemptDatabase();

  beforeEach(() => {
    for (const level of ['info', 'warn', 'error'] as const) {
      vi.spyOn(Logger, level).mockImplementation(() => undefined);
    }
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** One attempt row of channel `channelId`, sent 45 minutes ago, holding its order's charge slot. */
  async function attemptRow(channelId: string, status: AttemptStatus, tradeNo: string | null = null) {
    return db.repo.save(
      db.repo.create({
        orderNo: `${channelId}-1`,
        orderId: `${channelId}1`,
        orderCode: `${channelId}1`,
        channelId,
        paymentMethodCode: 'gatewaykit-card',
        mode: status === 'redirect' ? 'hosted' : 'card',
        amount: 1000,
        orderAmount: '10.00',
        currency: 'USD',
        status,
        tradeNo,
        message: status === 'unknown' ? 'the answer was lost' : null,
        openSlot: OPEN_SLOT,
        createdAt: new Date(Date.now() - 45 * MINUTE),
      }),
    );
  }

  /**
   * The service over the test database for one channel; the gateway lists `listed` for the attempt,
   * and `meanwhile` runs while it is asked (given the plugin's store, as the callback route uses it).
   */
  function reconciliation(
    channelId: string,
    listed: Record<string, unknown>[],
    meanwhile: (store: OrderAttempts) => Promise<unknown> = async () => undefined,
  ) {
    const ctx = new RequestContext({
      apiType: 'admin',
      channel: { id: channelId, defaultLanguageCode: 'en', defaultCurrencyCode: 'USD' } as never,
      isAuthorized: true,
      authorizedAsOwnerOnly: false,
    });
    const connection = {
      rawConnection: db.repo.manager.connection,
      withTransaction: (tx: RequestContext, work: (tx: RequestContext) => Promise<unknown>) => work(tx),
      getRepository: () => db.repo,
    } as unknown as TransactionalConnection;
    const applyToOrder = vi.fn(async () => undefined);
    const store = new OrderAttempts(ctx, 'gatewaykit-card', connection, {
      applyToOrder,
      note: vi.fn(),
      notice: vi.fn(),
    });
    const client = {
      transactions: {
        list: vi.fn(async () => {
          await meanwhile(store);
          return { list: listed, page: { total: listed.length, pageSize: 100, pageIndex: 1 } };
        }),
        retrieve: vi.fn(async () => {
          throw new Error('not asked in these tests');
        }),
      },
    };
    // No gateway refunds: every step of the refunds query returns the builder, and it finds none.
    const refunds: object = new Proxy(
      {},
      { get: (_target, key) => (key === 'getMany' ? async () => [] : () => refunds) },
    );
    // The order notes (OrderNotes.note): what a changed attempt adds to its order.
    const addNoteToOrder = vi.fn();
    const service = new ReconcileService(
      {
        rawConnection: {
          getRepository: (entity: unknown) =>
            entity === GatewaykitPaymentAttempt ? db.repo : { createQueryBuilder: () => refunds },
        },
      } as never,
      { forChannelId: async () => ctx } as never,
      { resolve: async () => ({ client }) } as never,
      { attemptsOf: () => store } as never,
      {} as never,
      { note: addNoteToOrder, noteOnce: vi.fn() } as never,
      { items: async () => [] } as never,
      {} as never,
      { vendureHost: 'http://localhost', storefrontOrderUrl: 'http://localhost/order/{code}' },
    );
    return { run: () => service.run({ channelId }), applyToOrder, addNoteToOrder };
  }

  const latePending = (orderNo: string): PaymentOutcome => ({
    orderNo,
    status: 'pending',
    tradeNo: 'T-late',
    amount: '10.00',
    currency: 'USD',
  });

  const pageTrade = (orderNo: string) => ({
    orderNo,
    tradeNo: 'T-late',
    tradeDate: '2024-05-01 11:15:02',
    tradeStatus: 'pending',
    tradeInfo: 'Pending',
    tradeAmount: '10.00',
    tradeCurrency: 'USD',
  });

  it('attack: read unanswered, acknowledged meanwhile, no record listed: not failed, the order stays held', async () => {
    const row = await attemptRow('RA', 'unknown');
    const { run, addNoteToOrder } = reconciliation('RA', [], (store) =>
      recordOutcome(store, latePending(row.orderNo)),
    );
    const report = await run();
    expect(report).toMatchObject({ checked: 1, changed: 0 });
    expect(report.items[0]).toMatchObject({ before: 'unknown', after: 'pending' });
    expect(report.items[0]!.reason).toContain('answered while the gateway was asked');
    expect(await db.repo.findOneByOrFail({ orderNo: row.orderNo })).toMatchObject({
      status: 'pending',
      tradeNo: 'T-late',
      openSlot: OPEN_SLOT,
    });
    expect(addNoteToOrder).not.toHaveBeenCalled();
  });

  it('attack: a gateway page answered pending with a trade meanwhile is not failed as expired', async () => {
    const row = await attemptRow('RB', 'redirect');
    const { run } = reconciliation('RB', [pageTrade(row.orderNo)], (store) =>
      recordOutcome(store, latePending(row.orderNo)),
    );
    const report = await run();
    expect(report).toMatchObject({ checked: 1, changed: 0 });
    expect(report.items[0]).toMatchObject({ before: 'redirect', after: 'pending' });
    expect(await db.repo.findOneByOrFail({ orderNo: row.orderNo })).toMatchObject({
      status: 'pending',
      openSlot: OPEN_SLOT,
    });
  });

  it('honest: nothing heard meanwhile: the unanswered attempt and the expired page end failed, their orders freed', async () => {
    const lost = await attemptRow('RC', 'unknown');
    const none = await reconciliation('RC', []).run();
    expect(none).toMatchObject({ checked: 1, changed: 1 });
    expect(await db.repo.findOneByOrFail({ orderNo: lost.orderNo })).toMatchObject({
      status: 'failed',
      message: 'the gateway has no record of this payment',
      openSlot: null,
    });

    const page = await attemptRow('RD', 'redirect');
    const expired = await reconciliation('RD', [pageTrade(page.orderNo)]).run();
    expect(expired).toMatchObject({ checked: 1, changed: 1 });
    expect(await db.repo.findOneByOrFail({ orderNo: page.orderNo })).toMatchObject({
      status: 'failed',
      message: "the gateway's page expired unpaid",
      openSlot: null,
    });
  });
});
