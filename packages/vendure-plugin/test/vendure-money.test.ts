import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { vendureAmountToOrderAmount } from '../src/service/vendure-money';

describe('vendureAmountToOrderAmount', () => {
  it('keeps two-decimal currencies as they are', () => {
    expect(vendureAmountToOrderAmount(1050, 'USD', 2)).toBe('10.50');
    expect(vendureAmountToOrderAmount(5, 'EUR', 2)).toBe('0.05');
  });

  it('sends yen without decimals and never multiplied by 100', () => {
    // Vendure stores ¥1,200 as 120000 (precision 2 for every currency).
    expect(vendureAmountToOrderAmount(120000, 'JPY', 2)).toBe('1200');
    expect(vendureAmountToOrderAmount(1200, 'JPY', 0)).toBe('1200');
  });

  it('refuses yen amounts with a fractional part rather than rounding', () => {
    expect(() => vendureAmountToOrderAmount(120050, 'JPY', 2)).toThrow();
  });

  it('round-trips any whole-yen amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (yen) => {
        expect(vendureAmountToOrderAmount(yen * 100, 'JPY', 2)).toBe(String(yen));
      }),
    );
  });
});
