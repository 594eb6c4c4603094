import type { PaymentOutcome } from '@gatewaykit/core';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';

/** Rebuilds the stored outcome of an attempt so core's mergeOutcome can decide what a new one changes. */
export function outcomeOfAttempt(attempt: GatewaykitPaymentAttempt): PaymentOutcome | undefined {
  const base = { orderNo: attempt.orderNo, tradeNo: attempt.tradeNo ?? undefined };
  switch (attempt.status) {
    case 'started':
      return undefined;
    case 'redirect':
      return { ...base, status: 'redirect', redirectUrl: '' };
    case 'pending':
      return { ...base, status: 'pending' };
    case 'unknown':
      return { ...base, status: 'unknown', reason: attempt.message ?? '' };
    case 'failed':
      return { ...base, status: 'failed', reason: attempt.message ?? '' };
    case 'succeeded':
      return { ...base, status: 'succeeded' };
  }
}
