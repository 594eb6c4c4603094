import type { PaymentOutcome } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { paymentStateFor } from '../src/service/payment-state';

describe('paymentStateFor (docs/payment-states.md)', () => {
  it('adds a Settled payment for a success, Declined for a failure, nothing while the answer is owed', () => {
    const outcomes: PaymentOutcome[] = [
      { status: 'unknown', orderNo: 'o', reason: 'timeout' },
      { status: 'redirect', orderNo: 'o', redirectUrl: 'https://gw/3ds' },
      { status: 'pending', orderNo: 'o' },
      { status: 'failed', orderNo: 'o', reason: 'declined' },
      { status: 'succeeded', orderNo: 'o', tradeNo: 'T1' },
    ];
    expect(outcomes.map(paymentStateFor)).toEqual([undefined, undefined, undefined, 'Declined', 'Settled']);
  });
});
