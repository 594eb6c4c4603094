import type { GatewayClient } from '@gatewaykit/core';
import { describe, expect, it, vi } from 'vitest';
import { GatewaykitCardService } from '../src/providers/gatewaykit/card';
import { OPTIONS } from './fake-provider';

const SENT = {
  orderNo: 'payses_1',
  mode: 'card',
  amount: '60.00',
  currency: 'USD',
  attemptedAt: new Date(Date.now() - 60_000).toISOString(),
  outcome: { orderNo: 'payses_1', status: 'unknown', reason: 'timeout' },
};

function trade(overrides: Record<string, unknown> = {}) {
  return {
    orderNo: 'payses_1',
    tradeNo: 'T1',
    tradeDate: '2026-01-01 00:00:00',
    tradeStatus: 'success',
    tradeInfo: 'Approved',
    tradeAmount: '60.00',
    tradeCurrency: 'USD',
    ...overrides,
  };
}

function serviceWith(list: () => Promise<unknown>) {
  const fake = { transactions: { list: vi.fn((_query: Record<string, unknown>) => list()) } };
  class TestCardService extends GatewaykitCardService {
    protected override get client(): GatewayClient {
      return fake as unknown as GatewayClient;
    }
  }
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  return { service: new TestCardService({ logger } as never, OPTIONS), list: fake.transactions.list };
}

describe("getPaymentStatus / retrievePayment read the gateway's record", () => {
  it('an unknown outcome becomes the recorded success (captured)', async () => {
    const { service, list } = serviceWith(async () => ({ list: [trade()], page: {} }));
    const status = await service.getPaymentStatus({ data: SENT });
    expect(status.status).toBe('captured');
    expect(status.data).toMatchObject({ outcome: { status: 'succeeded', tradeNo: 'T1' } });
    expect(list.mock.calls[0]![0]).toMatchObject({ orderNo: 'payses_1' });
    const retrieved = await service.retrievePayment({ data: SENT });
    expect(retrieved.data).toMatchObject({ outcome: { status: 'succeeded' } });
  });

  it('a record of another amount is not taken', async () => {
    const { service } = serviceWith(async () => ({ list: [trade({ tradeAmount: '1.00' })], page: {} }));
    expect((await service.getPaymentStatus({ data: SENT })).status).toBe('pending');
  });

  it('a settled outcome or a charge never sent is not looked up', async () => {
    const { service, list } = serviceWith(async () => ({ list: [trade({ tradeStatus: 'fail' })], page: {} }));
    const settled = { ...SENT, outcome: { orderNo: 'payses_1', status: 'succeeded', tradeNo: 'T1' } };
    expect((await service.getPaymentStatus({ data: settled })).status).toBe('captured');
    expect((await service.getPaymentStatus({ data: { ...SENT, attemptedAt: undefined } })).status).toBe(
      'pending',
    );
    expect(list).not.toHaveBeenCalled();
  });

  it('a query that fails leaves the stored outcome', async () => {
    const { service } = serviceWith(async () => {
      throw new Error('connection refused');
    });
    const retrieved = await service.retrievePayment({ data: SENT });
    expect(retrieved.data).toBe(SENT);
  });
});
