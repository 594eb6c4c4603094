import { type PaymentOutcome, type StoredAnswer, storedAnswerOf } from '@gatewaykit/core';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';

/** Rebuilds the stored outcome of an attempt so core's mergeOutcome can decide what a new one changes. */
export function outcomeOfAttempt(attempt: GatewaykitPaymentAttempt): PaymentOutcome | undefined {
  const base = { orderNo: attempt.orderNo, tradeNo: attempt.tradeNo ?? undefined };
  switch (attempt.status) {
    case 'started':
    case 'held':
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
 * What the gateway has said of an attempt so far, as core's reconcileAttempt reads it: core's
 * storedAnswerOf over the rebuilt outcome (`started` is sent with no answer heard, so unknown; an
 * "already paid" answer is known by the reason kept as the message), with the row's trade id.
 */
export function storedAnswerOfAttempt(attempt: GatewaykitPaymentAttempt): StoredAnswer {
  const { status, code } = storedAnswerOf(outcomeOfAttempt(attempt));
  return { status, tradeNo: attempt.tradeNo, code };
}
