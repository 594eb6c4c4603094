import { describe, expect, it } from 'vitest';
import {
  buildRefundRequest,
  RefundRequestError,
  refundHoldingBatchNo,
  refundTrackNo,
} from '../src/service/refund-request';

const payment = { id: 7, amount: 1940, transactionId: '2026112400000000000001', refunds: [] };
const input = {
  orderCode: 'ABC123',
  currency: 'USD',
  precision: 2,
  payment,
  amount: 1940,
  reason: 'damaged',
};

describe('buildRefundRequest', () => {
  it('refunds the whole trade as a full refund (type 1), anything less as partial (type 2)', () => {
    expect(buildRefundRequest(input)).toEqual({
      merTrackNo: 'ABC123-P7-R1',
      refundAmount: '19.40',
      refundReason: 'damaged',
      refundType: '1',
      remark: 'Vendure order ABC123, refund 1 of payment 7',
      tradeNo: '2026112400000000000001',
    });
    expect(buildRefundRequest({ ...input, amount: 100 })).toMatchObject({
      refundAmount: '1.00',
      refundType: '2',
    });
  });

  it("numbers the merchant's refund id by the payment's refunds, failed ones included", () => {
    const later = {
      ...payment,
      refunds: [
        { state: 'Settled', total: 100 },
        { state: 'Failed', total: 300 },
      ],
    };
    expect(buildRefundRequest({ ...input, payment: later, amount: 500 }).merTrackNo).toBe('ABC123-P7-R3');
    // The same refund built again (a rolled-back Vendure transaction) gets the same id.
    expect(buildRefundRequest({ ...input, payment: later, amount: 500 }).merTrackNo).toBe(
      refundTrackNo('ABC123', 7, 3),
    );
  });

  it('sends yen without decimals, never x100', () => {
    const yen = { ...input, currency: 'JPY', payment: { ...payment, amount: 120500 }, amount: 120500 };
    expect(buildRefundRequest(yen)).toMatchObject({ refundAmount: '1205', refundType: '1' });
    expect(() => buildRefundRequest({ ...yen, amount: 50 })).toThrow(RefundRequestError);
  });

  it('gives a reason when the admin gave none, and keeps it within the gateway limit', () => {
    expect(buildRefundRequest({ ...input, reason: '  ' }).refundReason).toBe('Refund of order ABC123');
    expect(buildRefundRequest({ ...input, reason: 'x'.repeat(300) }).refundReason).toHaveLength(256);
  });

  it('refuses what cannot be sent, saying why', () => {
    expect(() => buildRefundRequest({ ...input, payment: { ...payment, transactionId: null } })).toThrow(
      'the payment has no gateway trade number (transactionId): nothing was sent',
    );
    expect(() => buildRefundRequest({ ...input, amount: 0 })).toThrow('cannot refund 0 of a payment of 1940');
    expect(() => buildRefundRequest({ ...input, amount: 1941 })).toThrow(RefundRequestError);
  });

  it('refuses more than is left after the refunds read in the refund section (a failed one gave its amount back)', () => {
    const refunds = [
      { state: 'Pending', total: 1000 },
      { state: 'Settled', total: 400 },
      { state: 'Failed', total: 1940 },
    ];
    const section = { ...input, payment: { ...payment, refunds } };
    expect(buildRefundRequest({ ...section, amount: 540 })).toMatchObject({
      merTrackNo: 'ABC123-P7-R4',
      refundAmount: '5.40',
    });
    expect(() => buildRefundRequest({ ...section, amount: 541 })).toThrow(
      'cannot refund 541: only 540 of the payment of 1940 is left to refund',
    );
    // Two admins refunding the whole payment at once: the later one sees the earlier one's refund.
    const whole = { ...input, payment: { ...payment, refunds: [{ state: 'Pending', total: 1940 }] } };
    expect(() => buildRefundRequest(whole)).toThrow('only 0 of the payment of 1940 is left to refund');
  });

  it('converts in the currency the payment was charged in', () => {
    // 1940 minor units are 19.40 dollars, never 1940 yen (nor refused as yen with decimals).
    expect(buildRefundRequest({ ...input, currency: 'USD' }).refundAmount).toBe('19.40');
    expect(() => buildRefundRequest({ ...input, currency: 'JPY' })).toThrow(RefundRequestError);
  });
});

describe('refundHoldingBatchNo', () => {
  it("finds the earlier refund that already holds the gateway's refund, by transactionId or metadata", () => {
    const sent = { id: 4, state: 'Pending', total: 100, transactionId: 'B1', metadata: { batchNo: 'B1' } };
    const lost = { id: 5, state: 'Pending', total: 100, transactionId: '', metadata: { batchNo: 'B2' } };
    expect(refundHoldingBatchNo([sent, lost], 'B1')).toBe(sent);
    expect(refundHoldingBatchNo([sent, lost], 'B2')).toBe(lost);
    expect(refundHoldingBatchNo([sent, lost], 'B3')).toBeUndefined();
  });
});
