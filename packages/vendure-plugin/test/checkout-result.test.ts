import type { PaymentOutcome } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { paymentError, paymentPending, resultForOutcome } from '../src/service/checkout-result';

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
