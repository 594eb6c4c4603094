import { describe, expect, it } from 'vitest';
import { staleRequest } from '../src/service/payment-request';

describe('staleRequest (read again once the attempt holds the order claim)', () => {
  const waiting = { state: 'ArrangingPayment', totalWithTax: 1940, payments: [] };

  it('sends when the order still waits for the prepared amount', () => {
    expect(staleRequest(1940, waiting)).toBeUndefined();
    expect(staleRequest(940, { ...waiting, payments: [{ state: 'Settled', amount: 1000 }] })).toBeUndefined();
    // A declined earlier attempt covers nothing.
    expect(
      staleRequest(1940, { ...waiting, payments: [{ state: 'Declined', amount: 1940 }] }),
    ).toBeUndefined();
  });

  it('a concurrent attempt that paid the order meanwhile (double click): paid, nothing is sent', () => {
    const paid = {
      state: 'PaymentSettled',
      totalWithTax: 1940,
      payments: [{ state: 'Settled', amount: 1940 }],
    };
    expect(staleRequest(1940, paid)).toBe('paid');
  });

  it('another amount or state: changed', () => {
    expect(staleRequest(1940, { ...waiting, totalWithTax: 2940 })).toBe('changed');
    expect(staleRequest(1940, { ...waiting, state: 'AddingItems' })).toBe('changed');
  });
});
