import type { PaymentOutcome } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import {
  answerFromRecording,
  MISMATCH_ANSWER,
  paymentError,
  paymentPending,
  resultForOutcome,
} from '../src/service/checkout-result';
import { UNAPPLIED_ANSWER } from '../src/service/unapplied-charge';

describe('resultForOutcome', () => {
  it('maps each outcome to its GraphQL type; only a success names the order', () => {
    const cases: [PaymentOutcome, unknown][] = [
      [
        { status: 'redirect', orderNo: 'ABC-1', redirectUrl: 'https://gw.example/pay/1' },
        { __typename: 'GatewaykitPaymentRedirect', url: 'https://gw.example/pay/1', orderNo: 'ABC-1' },
      ],
      [
        { status: 'failed', orderNo: 'ABC-1', reason: 'Insufficient funds', code: 'E1' },
        {
          __typename: 'GatewaykitPaymentError',
          errorCode: 'PAYMENT_DECLINED',
          message: 'Insufficient funds',
        },
      ],
      [
        { status: 'pending', orderNo: 'ABC-1', orderInfo: 'Awaiting bank transfer' },
        { __typename: 'GatewaykitPaymentPending', orderNo: 'ABC-1', message: 'Awaiting bank transfer' },
      ],
      [
        { status: 'pending', orderNo: 'ABC-1' },
        {
          __typename: 'GatewaykitPaymentPending',
          orderNo: 'ABC-1',
          message: 'The payment is pending at the gateway',
        },
      ],
      [
        { status: 'unknown', orderNo: 'ABC-1', reason: 'timeout' },
        {
          __typename: 'GatewaykitPaymentPending',
          orderNo: 'ABC-1',
          message: 'The gateway has not confirmed the payment yet; it will be confirmed shortly',
        },
      ],
    ];
    for (const [outcome, expected] of cases) {
      expect(resultForOutcome(outcome, 'ABC-1', 7)).toEqual(expected);
    }
    expect(resultForOutcome({ status: 'succeeded', orderNo: 'ABC-1' }, 'ABC-1', 7)).toEqual({
      __typename: 'GatewaykitPaymentCompleted',
      orderId: 7,
    });
  });
});

describe('constructors', () => {
  it('build the error and pending members of the union', () => {
    expect(paymentError('NO_ACTIVE_ORDER', 'There is no active order')).toEqual({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'NO_ACTIVE_ORDER',
      message: 'There is no active order',
    });
    expect(paymentPending('A-3', 'wait')).toEqual({
      __typename: 'GatewaykitPaymentPending',
      orderNo: 'A-3',
      message: 'wait',
    });
  });
});

describe('answerFromRecording', () => {
  const attempt = (status: string, openSlot: string | null = null) => ({
    orderNo: 'ABC-1',
    orderAmount: '10.00',
    currency: 'USD',
    outcome: undefined,
    row: { status, openSlot } as never,
  });
  const success: PaymentOutcome = { status: 'succeeded', orderNo: 'ABC-1', amount: '10.00', currency: 'USD' };

  it('a recorded success is a completed payment', () => {
    const decision = {
      kind: 'changed' as const,
      attempt: attempt('succeeded'),
      incoming: success,
      next: success,
    };
    expect(answerFromRecording(decision, success, 'ABC-1', 7)).toEqual({
      __typename: 'GatewaykitPaymentCompleted',
      orderId: 7,
    });
  });

  it('attack: a success about another amount is not recorded, so never answered as completed (found by review)', () => {
    const other = { ...success, amount: '0.01' };
    const decision = {
      kind: 'mismatch' as const,
      attempt: attempt('started', 'open'),
      incoming: other,
      message: 'x',
    };
    expect(answerFromRecording(decision, other, 'ABC-1', 7)).toEqual(
      paymentError('PAID_NOT_APPLIED', UNAPPLIED_ANSWER),
    );
    const declined: PaymentOutcome = { status: 'failed', orderNo: 'ABC-1', reason: 'no', amount: '0.01' };
    expect(
      answerFromRecording(
        { kind: 'mismatch', attempt: attempt('started', 'open'), incoming: declined, message: 'x' },
        declined,
        'ABC-1',
        7,
      ),
    ).toEqual(paymentPending('ABC-1', MISMATCH_ANSWER));
  });

  it('a success Vendure could not add to the order is answered as such', () => {
    const decision = {
      kind: 'changed' as const,
      attempt: attempt('succeeded', 'open'),
      incoming: success,
      next: success,
    };
    expect(answerFromRecording(decision, success, 'ABC-1', 7)).toEqual(
      paymentError('PAID_NOT_APPLIED', UNAPPLIED_ANSWER),
    );
  });

  it('a final outcome a callback recorded first is what the shopper is told, not a late pending answer', () => {
    const pending: PaymentOutcome = { status: 'pending', orderNo: 'ABC-1' };
    const stale = {
      kind: 'stale' as const,
      attempt: attempt('succeeded'),
      incoming: pending,
      current: success,
    };
    expect(answerFromRecording(stale, pending, 'ABC-1', 7)).toMatchObject({
      __typename: 'GatewaykitPaymentCompleted',
    });
  });
});
