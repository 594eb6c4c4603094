import { ALREADY_PAID_REASON, gatewayAcknowledged } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { GatewaykitPaymentAttempt } from '../src/entity/payment-attempt.entity';
import { storedAnswerOfAttempt } from '../src/service/attempt-outcome';

const row = (fields: Partial<GatewaykitPaymentAttempt>) =>
  new GatewaykitPaymentAttempt({
    orderNo: 'CODE-1',
    status: 'started',
    tradeNo: null,
    message: null,
    ...fields,
  });

describe('storedAnswerOfAttempt (what the gateway said, for the reconciliation)', () => {
  it('a charge sent with no answer heard is unknown, and not acknowledged: no record may fail it', () => {
    const answer = storedAnswerOfAttempt(row({ status: 'started' }));
    expect(answer).toEqual({ status: 'unknown', tradeNo: null, code: undefined });
    expect(gatewayAcknowledged(answer)).toBe(false);
  });

  it('a pending answer, a trade id, or an "already paid" answer kept as the message: acknowledged', () => {
    expect(gatewayAcknowledged(storedAnswerOfAttempt(row({ status: 'pending' })))).toBe(true);
    expect(gatewayAcknowledged(storedAnswerOfAttempt(row({ status: 'unknown', tradeNo: 'T1' })))).toBe(true);
    const alreadyPaid = storedAnswerOfAttempt(row({ status: 'unknown', message: ALREADY_PAID_REASON }));
    expect(alreadyPaid.code).toBe('I0061');
    expect(gatewayAcknowledged(alreadyPaid)).toBe(true);
  });

  it('a gateway page is not acknowledged, even with its trade id', () => {
    expect(gatewayAcknowledged(storedAnswerOfAttempt(row({ status: 'redirect', tradeNo: 'T2' })))).toBe(
      false,
    );
  });
});
