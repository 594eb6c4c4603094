import { describe, expect, it } from 'vitest';
import { whyPaymentReturned } from '../src/lib/returned-payment';

describe('whyPaymentReturned', () => {
  it('money still held (or no payment yet) is not returned', () => {
    expect(whyPaymentReturned(undefined)).toBeUndefined();
    expect(whyPaymentReturned({ payment: null })).toBeUndefined();
    expect(whyPaymentReturned({ payment: { canceled_at: null, refunds: [] } })).toBeUndefined();
    expect(whyPaymentReturned({ payment: { canceled_at: null, refunds: null } })).toBeUndefined();
  });

  it('a refund of any size, or a cancellation, gives the money back', () => {
    expect(whyPaymentReturned({ payment: { refunds: [{ id: 'ref_1' }] } })).toBe('was refunded');
    expect(whyPaymentReturned({ payment: { canceled_at: new Date(), refunds: [] } })).toBe(
      'was canceled in Medusa',
    );
  });

  it('a refund made at the gateway (the merchant portal) gives the money back too; other payment data does not', () => {
    expect(whyPaymentReturned({ payment: { refunds: [], data: { refundedAtGateway: ['B1'] } } })).toBe(
      'was refunded at the gateway',
    );
    expect(whyPaymentReturned({ payment: { refunds: [], data: { refundedAtGateway: [] } } })).toBeUndefined();
    expect(
      whyPaymentReturned({ payment: { refunds: [], data: { outcome: { status: 'succeeded' } } } }),
    ).toBeUndefined();
  });

  it('attack: a portal refund or a chargeback kept on the session (no Medusa payment took the success) gives the money back', () => {
    expect(whyPaymentReturned({ data: { refundedAtGateway: ['B1'] }, payment: null })).toBe(
      'was refunded at the gateway',
    );
    expect(whyPaymentReturned({ data: { chargebacks: [{ batchNo: 'C1' }] } })).toBe(
      "was charged back by the cardholder's bank",
    );
    expect(whyPaymentReturned({ payment: { refunds: [], data: { chargebacks: [{ batchNo: 'C1' }] } } })).toBe(
      "was charged back by the cardholder's bank",
    );
    expect(whyPaymentReturned({ data: { refundedAtGateway: [], chargebacks: [] } })).toBeUndefined();
  });
});
