import { describe, expect, it } from 'vitest';
import { staleRequest } from '../src/service/payment-request';

describe('staleRequest (read again once the attempt holds the order claim)', () => {
  const waiting = { state: 'ArrangingPayment', totalWithTax: 1940, currencyCode: 'EUR', payments: [] };
  const prepared = (amount: number, currency = 'EUR') => ({ amount, currency });

  it('sends when the order still waits for the prepared amount', () => {
    expect(staleRequest(prepared(1940), waiting)).toBeUndefined();
    expect(
      staleRequest(prepared(940), { ...waiting, payments: [{ state: 'Settled', amount: 1000 }] }),
    ).toBeUndefined();
    // A declined earlier attempt covers nothing.
    expect(
      staleRequest(prepared(1940), { ...waiting, payments: [{ state: 'Declined', amount: 1940 }] }),
    ).toBeUndefined();
  });

  it('a concurrent attempt that paid the order meanwhile (double click): paid, nothing is sent', () => {
    const paid = {
      state: 'PaymentSettled',
      totalWithTax: 1940,
      currencyCode: 'EUR',
      payments: [{ state: 'Settled', amount: 1940 }],
    };
    expect(staleRequest(prepared(1940), paid)).toBe('paid');
  });

  it('another amount or state: changed', () => {
    expect(staleRequest(prepared(1940), { ...waiting, totalWithTax: 2940 })).toBe('changed');
    expect(staleRequest(prepared(1940), { ...waiting, state: 'AddingItems' })).toBe('changed');
  });

  it("the same amount in another currency (Vendure moved the order to the request's currency): changed", () => {
    expect(staleRequest(prepared(1940, 'JPY'), waiting)).toBe('changed');
  });
});
