import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountMismatch } from '../src/inbound/decision.js';
import {
  mergeOutcome,
  outcomeFromCallback,
  outcomeFromOrderFields,
  outcomeFromReturn,
  type PaymentOutcome,
} from '../src/index.js';

const outcomes: PaymentOutcome[] = [
  { status: 'unknown', orderNo: 'o', reason: 'timeout' },
  { status: 'redirect', orderNo: 'o', redirectUrl: 'https://gw/3ds' },
  { status: 'pending', orderNo: 'o' },
  { status: 'failed', orderNo: 'o', reason: 'declined' },
  { status: 'succeeded', orderNo: 'o', tradeNo: 'T1' },
];

describe('mergeOutcome', () => {
  it('never leaves success, whatever arrives afterwards and in whatever order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...outcomes), { minLength: 1, maxLength: 20 }), (sequence) => {
        let state: PaymentOutcome | undefined;
        let seenSuccess = false;
        for (const incoming of sequence) {
          state = mergeOutcome(state, incoming).next;
          seenSuccess ||= incoming.status === 'succeeded';
          if (seenSuccess) expect(state.status).toBe('succeeded');
        }
      }),
    );
  });

  it('reports duplicates as unchanged and lets success replace a failure', () => {
    const success = outcomes[4]!;
    expect(mergeOutcome(success, { ...success }).changed).toBe(false);
    expect(mergeOutcome(outcomes[3], success)).toEqual({ next: success, changed: true });
    expect(mergeOutcome(success, outcomes[3]!)).toEqual({ next: success, changed: false });
  });
});

describe('reading callbacks and returns', () => {
  it('maps transaction events by orderStatus and ignores refunds', () => {
    expect(
      outcomeFromCallback({
        type: 'transaction.fail',
        data: { orderNo: 'o', orderStatus: 'fail', orderInfo: 'Declined' },
      }),
    ).toMatchObject({
      status: 'failed',
      reason: 'Declined',
    });
    expect(
      outcomeFromCallback({
        type: 'transaction.success',
        data: { orderNo: 'o', orderAmount: '1.00', orderCurrency: 'USD' },
      }),
    ).toMatchObject({
      status: 'succeeded',
      amount: '1.00',
    });
    expect(outcomeFromCallback({ type: 'refund.success', data: { orderNo: 'o' } })).toBeUndefined();
  });

  it('maps a return and uses its message when orderInfo is empty', () => {
    const fields = {
      code: '0000',
      gatewayNo: '1',
      maskCardNo: '',
      merNo: '1',
      message: 'Abandoned by the shopper',
      orderAmount: '1.00',
      orderCurrency: 'USD',
      orderInfo: '',
      orderNo: 'o',
      orderStatus: 'fail' as const,
      tradeNo: 'T',
    };
    expect(outcomeFromReturn(fields)).toMatchObject({ status: 'failed', reason: 'Abandoned by the shopper' });
  });
});

describe('the address a charge sends the shopper to', () => {
  it('an absolute http(s) address is a redirect', () => {
    for (const redirectUrl of ['https://gw.example/3ds/1', 'http://127.0.0.1:4010/pay/T1']) {
      expect(outcomeFromOrderFields({ orderNo: 'o', orderStatus: 'pending', redirectUrl })).toMatchObject({
        status: 'redirect',
        redirectUrl,
      });
    }
  });

  it('attack: a javascript:, data: or relative address is never handed to the storefront; unknown, not failed', () => {
    for (const redirectUrl of [
      'javascript:alert(document.cookie)',
      ' JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      '/relative/path',
      '//evil.example/pay',
    ]) {
      const outcome = outcomeFromOrderFields({ orderNo: 'o', orderStatus: 'pending', redirectUrl });
      expect(outcome).toEqual(
        expect.objectContaining({
          status: 'unknown',
          reason: 'the gateway sent the shopper to an address that is not http(s)',
        }),
      );
      expect(JSON.stringify(outcome)).not.toContain(redirectUrl.trim());
    }
  });
});

describe('amountMismatch (the one amount rule of the inbound path)', () => {
  const attempt = (orderAmount: string, currency: string) => ({
    orderNo: 'o',
    orderAmount,
    currency,
    outcome: undefined,
  });
  const success = (amount?: string, currency?: string): PaymentOutcome => ({
    status: 'succeeded',
    orderNo: 'o',
    amount,
    currency,
  });

  it('accepts equal amounts in any notation and refuses other amounts or currencies', () => {
    expect(amountMismatch(success('10.5', 'usd'), attempt('10.50', 'USD'))).toBeUndefined();
    expect(amountMismatch(success('1200', 'JPY'), attempt('1200', 'JPY'))).toBeUndefined();
    expect(amountMismatch(success('9.50', 'USD'), attempt('10.50', 'USD'))).toMatch(/mismatch/);
    expect(amountMismatch(success('10.50', 'EUR'), attempt('10.50', 'USD'))).toMatch(/mismatch/);
    expect(amountMismatch(success(), attempt('10.50', 'USD'))).toMatch(/mismatch/);
  });
});
