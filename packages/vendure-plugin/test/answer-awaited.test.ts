import { describe, expect, it } from 'vitest';
import type { GatewaykitPaymentAttempt } from '../src/entity/payment-attempt.entity';
import { type OrderAttempt, OrderAttempts } from '../src/service/order-attempts';

/** Only the attempt row is read; the store's other collaborators are never touched here. */
const store = new OrderAttempts({} as never, 'gatewaykit-card', {} as never, {} as never);

function attempt(status: GatewaykitPaymentAttempt['status'], ageMs: number): OrderAttempt {
  const row = { status, createdAt: new Date(Date.now() - ageMs) } as GatewaykitPaymentAttempt;
  return { orderNo: 'o-1', orderAmount: '10.00', currency: 'USD', outcome: undefined, row };
}

describe('OrderAttempts.answerAwaited (a callback lets the checkout record first)', () => {
  it('is true for an attempt sent moments ago and still unanswered', () => {
    expect(store.answerAwaited(attempt('started', 200))).toBe(true);
    // The database's clock a little ahead of this server's.
    expect(store.answerAwaited(attempt('started', -3_000))).toBe(true);
  });

  it('is false once the answer is recorded, for an old attempt, and for clocks far apart', () => {
    for (const status of ['redirect', 'pending', 'unknown', 'succeeded', 'failed'] as const) {
      expect(store.answerAwaited(attempt(status, 200))).toBe(false);
    }
    expect(store.answerAwaited(attempt('started', 31_000))).toBe(false);
    expect(store.answerAwaited(attempt('started', -3_600_000))).toBe(false);
  });
});
