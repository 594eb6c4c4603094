import { Logger } from '@vendure/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewaykitPaymentAttempt } from '../src/entity/payment-attempt.entity';
import { ReconcileService } from '../src/service/reconcile.service';

/**
 * A reconciliation item that cannot be settled is said at error level, naming the order, on every run:
 * the report alone reaches nobody when the scheduled task runs it.
 */
describe('reconciliation items that fail', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const row = {
    orderNo: 'STUCK1-1',
    orderCode: 'STUCK1',
    orderId: '1',
    channelId: '1',
    paymentMethodCode: 'gatewaykit-card',
    status: 'unknown',
    createdAt: new Date(0),
  } as GatewaykitPaymentAttempt;

  /** A service over one open attempt and no refunds; `resolve` is the method lookup. */
  function service(options: { channel: boolean; resolve: () => Promise<never> }) {
    // The refunds and chargeback-sources queries: every builder step returns the builder, and it finds none.
    const none: object = new Proxy(
      {},
      {
        get: (_target, key) => (key === 'getMany' || key === 'getRawMany' ? async () => [] : () => none),
      },
    );
    const attempts = {
      find: vi.fn().mockResolvedValueOnce([row]).mockResolvedValue([]),
      createQueryBuilder: () => none,
    };
    const connection = {
      rawConnection: {
        getRepository: (entity: unknown) =>
          entity === GatewaykitPaymentAttempt ? attempts : { createQueryBuilder: () => none },
      },
    };
    const channels = { forChannelId: async () => (options.channel ? {} : undefined) };
    return new ReconcileService(
      connection as never,
      channels as never,
      { resolve: options.resolve } as never,
      {} as never,
      {} as never,
      {} as never,
      { items: async () => [] } as never,
      {} as never,
      { vendureHost: 'http://localhost', storefrontOrderUrl: 'http://localhost/order/{code}' },
    );
  }

  it('a failure (here the method lookup throwing) is logged at error level with the order code', async () => {
    const error = vi.spyOn(Logger, 'error').mockImplementation(() => undefined);
    const report = await service({
      channel: true,
      resolve: () => Promise.reject(new Error('connection terminated')),
    }).run();
    expect(report.items).toEqual([expect.objectContaining({ reason: 'failed: connection terminated' })]);
    expect(error).toHaveBeenCalledWith(
      'Order STUCK1: reconciliation of payment attempt STUCK1-1 failed: connection terminated',
      expect.any(String),
    );
  });

  it('an attempt whose channel is gone (it can never be read back) is logged at error level with the order code', async () => {
    const error = vi.spyOn(Logger, 'error').mockImplementation(() => undefined);
    await service({ channel: false, resolve: () => Promise.reject(new Error('not asked')) }).run();
    expect(error).toHaveBeenCalledWith(
      expect.stringContaining(
        'Order STUCK1: payment attempt STUCK1-1 cannot be reconciled: channel 1 no longer exists',
      ),
      expect.any(String),
    );
  });
});
