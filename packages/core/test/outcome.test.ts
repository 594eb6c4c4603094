import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountMismatch } from '../src/inbound/decision.js';
import {
  ALREADY_PAID_REASON,
  DUPLICATE_ORDER_CODE,
  gatewayAcknowledged,
  mergeOutcome,
  outcomeFromCallback,
  outcomeFromOrderFields,
  outcomeFromReturn,
  outcomeFromTransaction,
  type PaymentOutcome,
  storedAnswerOf,
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

describe('"already paid" (I0061) in orderInfo of a fail', () => {
  const alreadyPaid = { status: 'unknown', reason: ALREADY_PAID_REASON, code: DUPLICATE_ORDER_CODE };
  const trade = { orderNo: 'o', tradeNo: 'T9', orderAmount: '10.00', orderCurrency: 'USD' };

  it('is unknown with code I0061 from an answer, a callback, a return and a transaction record', () => {
    for (const orderInfo of ['I0061:Duplicate Order', ' i0061_Duplicate Order', 'I0061']) {
      expect(outcomeFromOrderFields({ ...trade, orderStatus: 'fail', orderInfo })).toMatchObject({
        ...alreadyPaid,
        tradeNo: 'T9',
      });
      for (const orderStatus of ['fail', undefined]) {
        expect(
          outcomeFromCallback({ type: 'transaction.fail', data: { ...trade, orderStatus, orderInfo } }),
        ).toMatchObject(alreadyPaid);
      }
    }
    expect(
      outcomeFromReturn({
        code: '0000',
        gatewayNo: '1',
        maskCardNo: '',
        merNo: '1',
        message: 'Duplicate Order',
        orderAmount: '10.00',
        orderCurrency: 'USD',
        orderInfo: 'I0061:Duplicate Order',
        orderNo: 'o',
        orderStatus: 'fail',
        tradeNo: 'T9',
      }),
    ).toMatchObject(alreadyPaid);
    const record = {
      orderNo: 'o',
      tradeNo: 'T9',
      tradeDate: '2024-05-01 10:00:02',
      tradeStatus: 'fail' as const,
      tradeInfo: 'I0061:Duplicate Order',
      tradeAmount: '10.00',
      tradeCurrency: 'USD',
    };
    expect(outcomeFromTransaction(record)).toMatchObject(alreadyPaid);
    expect(gatewayAcknowledged(storedAnswerOf(outcomeFromTransaction(record)))).toBe(true);
  });

  it('other fail texts stay declines (I0061 only as the leading code)', () => {
    for (const orderInfo of ['I0013:Invalid Encryption value', 'I00610:Other', 'Declined: I0061']) {
      expect(outcomeFromOrderFields({ ...trade, orderStatus: 'fail', orderInfo })).toMatchObject({
        status: 'failed',
      });
    }
  });
});

describe('the orderStatus of a transaction callback', () => {
  const trade = { orderNo: 'o', tradeNo: 'T1', orderAmount: '10.00', orderCurrency: 'USD' };
  const callback = (type: string, orderStatus: string | undefined) =>
    outcomeFromCallback({ type, data: { ...trade, orderStatus } });

  it('is read with surrounding spaces and in any case', () => {
    expect(callback('transaction.success', 'success ')?.status).toBe('succeeded');
    expect(callback('transaction.success', ' SUCCESS\n')?.status).toBe('succeeded');
    expect(callback('transaction.pending', ' pending')?.status).toBe('pending');
    expect(callback('transaction.fail', 'fail ')?.status).toBe('failed');
    // Empty is absent: the type decides.
    expect(callback('transaction.success', '  ')?.status).toBe('succeeded');
  });

  it('a status that is not one of the three (legacy numeric ones too) is unknown: not a notice, never a failure', () => {
    for (const type of [
      'transaction.success',
      'transaction.fail',
      'transaction.pending',
      'transaction.clear',
    ]) {
      for (const orderStatus of ['1', '0', '-1', '-2', 'approved']) {
        const outcome = callback(type, orderStatus);
        expect(outcome, `${type} ${orderStatus}`).toMatchObject({
          status: 'unknown',
          reason: `unrecognised orderStatus ${orderStatus}`,
        });
      }
    }
    // No status at all on a clearing notice: still a notice.
    expect(callback('transaction.clear', undefined)).toBeUndefined();
  });
});

describe('maskCardNo (stored, and shown to the shopper)', () => {
  const trade = { orderNo: 'o', tradeNo: 'T1', orderAmount: '10.00', orderCurrency: 'USD' };
  const returned = (maskCardNo: string) => ({
    ...trade,
    code: '0000',
    gatewayNo: '1',
    maskCardNo,
    merNo: '1',
    message: 'Success',
    orderInfo: 'Approved',
    orderStatus: 'success' as const,
  });

  it('attack: a whole card number from a charge answer, a callback or a return is dropped, never kept', () => {
    for (const maskCardNo of [
      '4242424242424242',
      '4000000000003155',
      '4242 4242 4242 4242',
      '4242424***4242',
      '424242***42424',
      '4242424242424242***',
    ]) {
      const outcomes = [
        outcomeFromOrderFields({ ...trade, orderStatus: 'success', maskCardNo }),
        outcomeFromCallback({
          type: 'transaction.success',
          data: { ...trade, orderStatus: 'success', maskCardNo },
        }),
        outcomeFromCallback({ type: 'transaction.pending', data: { ...trade, maskCardNo } }),
        outcomeFromReturn(returned(maskCardNo)),
      ];
      for (const outcome of outcomes) {
        expect(outcome, maskCardNo).toBeDefined();
        expect(outcome?.maskCardNo, maskCardNo).toBeUndefined();
        expect(JSON.stringify(outcome)).not.toMatch(/\d{13,19}/);
      }
    }
  });

  it('a masked card number is kept: first 6 + *** + last 4 as the gateway and the sandbox write it, or fewer digits', () => {
    for (const maskCardNo of ['400000***3155', '424242***4242', '4242********4242', '************4242']) {
      expect(outcomeFromOrderFields({ ...trade, orderStatus: 'success', maskCardNo }).maskCardNo).toBe(
        maskCardNo,
      );
      expect(
        outcomeFromCallback({ type: 'transaction.success', data: { ...trade, maskCardNo } })?.maskCardNo,
      ).toBe(maskCardNo);
      expect(outcomeFromReturn(returned(maskCardNo)).maskCardNo).toBe(maskCardNo);
    }
    // Absent or empty (a hosted page's answer before the card is typed): none.
    expect(
      outcomeFromOrderFields({ ...trade, orderStatus: 'pending', maskCardNo: '' }).maskCardNo,
    ).toBeUndefined();
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
