import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currencyDigits,
  fromOrderAmount,
  GatewayValidationError,
  minorToOrderAmount,
  orderAmountToMinor,
  toOrderAmount,
} from '../src/index.js';
import { sameOrderAmount } from '../src/money.js';

describe('orderAmount by currency digits', () => {
  it('formats two-digit currencies with two decimals', () => {
    expect(toOrderAmount(10.5, 'USD')).toBe('10.50');
    expect(toOrderAmount('7', 'eur')).toBe('7.00');
    expect(minorToOrderAmount(1050, 'USD')).toBe('10.50');
    expect(minorToOrderAmount(5, 'USD')).toBe('0.05');
  });

  it('sends zero-digit currencies without decimals and never multiplies them by 100', () => {
    expect(toOrderAmount(1200, 'JPY')).toBe('1200');
    expect(minorToOrderAmount(1200, 'JPY')).toBe('1200');
    expect(orderAmountToMinor('1200', 'JPY')).toBe(1200);
    expect(currencyDigits('KRW')).toBe(0);
  });

  it('refuses more precision than the currency has instead of rounding', () => {
    expect(() => toOrderAmount(10.005, 'USD')).toThrow(GatewayValidationError);
    expect(() => toOrderAmount(12.5, 'JPY')).toThrow(/whole number/);
  });

  it('refuses three-digit currencies, unknown codes, zero, negatives and non-numbers', () => {
    expect(() => toOrderAmount(1, 'KWD')).toThrow(/more than two minor digits/);
    expect(() => toOrderAmount(1, 'XYZ')).toThrow(/ISO 4217/);
    expect(() => toOrderAmount(0, 'USD')).toThrow(/greater than zero/);
    expect(() => toOrderAmount(-1, 'USD')).toThrow(GatewayValidationError);
    expect(() => toOrderAmount('1e3', 'USD')).toThrow(GatewayValidationError);
    expect(() => toOrderAmount(Number.NaN, 'USD')).toThrow(/finite/);
  });

  it('refuses amounts longer than 16 characters', () => {
    expect(() => minorToOrderAmount(10n ** 16n, 'USD')).toThrow(/16 characters/);
  });

  it('round-trips minor units for every supported digit count', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.constantFrom('USD', 'EUR', 'JPY', 'KRW', 'GBP'),
        (minor, currency) => {
          const text = minorToOrderAmount(minor, currency);
          expect(orderAmountToMinor(text, currency)).toBe(minor);
          expect(text).toMatch(currencyDigits(currency) === 0 ? /^\d+$/ : /^\d+\.\d{2}$/);
          expect(toOrderAmount(text, currency)).toBe(text);
        },
      ),
    );
  });

  it('reads amounts back in major units and compares them by value', () => {
    expect(fromOrderAmount('10.50', 'USD')).toBe(10.5);
    expect(sameOrderAmount('10.5', '10.50', 'USD')).toBe(true);
    expect(sameOrderAmount('10.51', '10.50', 'USD')).toBe(false);
    expect(sameOrderAmount('100', '1.00', 'JPY')).toBe(false);
  });

  it('never rounds amounts beyond what a number holds exactly (2^53): compares them exactly, refuses to convert', () => {
    // 9999999999999999 as a number is 10000000000000000: rounded up.
    expect(sameOrderAmount('9999999999999999', '10000000000000000', 'JPY')).toBe(false);
    expect(sameOrderAmount('09999999999999999', '9999999999999999', 'JPY')).toBe(true);
    expect(() => fromOrderAmount('9999999999999999', 'JPY')).toThrow(/too large to convert/);
    expect(() => orderAmountToMinor('99999999999999.99', 'USD')).toThrow(GatewayValidationError);
    expect(orderAmountToMinor('90071992547409.91', 'USD')).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toOrderAmount(2 ** 53 + 2, 'JPY')).toThrow(/pass it as a string/);
    expect(toOrderAmount('9999999999999999', 'JPY')).toBe('9999999999999999');
  });
});
