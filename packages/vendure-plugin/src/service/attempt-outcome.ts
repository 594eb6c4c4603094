import {
  ALREADY_PAID_REASON,
  DUPLICATE_ORDER_CODE,
  type PaymentOutcome,
  type StoredAnswer,
} from '@gatewaykit/core';
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

/**
 * What the gateway has said of an attempt so far, as core's reconcileAttempt reads it: `started` is
 * sent with no answer heard (unknown). The gateway's answer code is not stored; an "already paid"
 * (I0061) answer is known by the reason kept as the attempt's message.
 */
export function storedAnswerOfAttempt(attempt: GatewaykitPaymentAttempt): StoredAnswer {
  return {
    status: attempt.status === 'started' ? 'unknown' : attempt.status,
    tradeNo: attempt.tradeNo,
    code: attempt.message === ALREADY_PAID_REASON ? DUPLICATE_ORDER_CODE : undefined,
  };
}
