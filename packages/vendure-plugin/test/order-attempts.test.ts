import { RequestContext, type TransactionalConnection } from '@vendure/core';
import { describe, expect, it, vi } from 'vitest';
import type { GatewaykitPaymentAttempt } from '../src/entity/payment-attempt.entity';
import { OrderAttempts } from '../src/service/order-attempts';

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
