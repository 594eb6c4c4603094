import { describe, expect, it } from 'vitest';
import { overpaidBy } from '../src/service/overpayment';

/** What a success pays beyond what its order still owes (amounts in Vendure's minor units). */
describe('overpayment', () => {
  const order = (
    totalWithTax: number,
    payments: { amount: number; state: string; currency?: string }[] = [],
  ) => ({
    totalWithTax,
    currencyCode: 'USD',
    payments: payments.map((p) => ({ ...p, metadata: p.currency ? { currency: p.currency } : {} })),
  });

  it('a payment of what is owed, or less, overpays nothing', () => {
    expect(overpaidBy(order(1940), 1940)).toBe(0);
    expect(overpaidBy(order(1940, [{ amount: 940, state: 'Settled' }]), 1000)).toBe(0);
    expect(overpaidBy(order(1940), 1000)).toBe(0);
  });

  it('attack: a page opened for 4,820 paid after the total fell to 1,940 overpays by the difference', () => {
    expect(overpaidBy(order(1940), 4820)).toBe(2880);
  });

  it('counts only payments that hold money in the order currency; an order already covered is overpaid by the whole payment', () => {
    expect(overpaidBy(order(1940, [{ amount: 1940, state: 'Declined' }]), 1940)).toBe(0);
    expect(overpaidBy(order(1940, [{ amount: 1940, state: 'Settled', currency: 'JPY' }]), 1940)).toBe(0);
    expect(overpaidBy(order(1940, [{ amount: 1000, state: 'Settled' }]), 1940)).toBe(1000);
    expect(overpaidBy(order(1940, [{ amount: 2000, state: 'Settled' }]), 1940)).toBe(1940);
  });
});
