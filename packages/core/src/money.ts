/**
 * Money rules: platform amounts ↔ the gateway's `orderAmount` string.
 * The gateway accepts at most two decimals and integers for currencies without a minor unit, so
 * amounts are converted by the ISO 4217 minor-unit digits of the currency. Nothing is ever rounded:
 * an amount more precise than its currency allows is an error, not a guess.
 */
import type { GatewayValidationError } from './errors.js';
import { redactText } from './redact.js';
import { invalidInput } from './validation.js';

/** ISO 4217 currencies with no minor unit. */
const ZERO_DIGIT = new Set('BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' '));

/** ISO 4217 currencies with three or four minor digits: the gateway cannot express them. */
const OVER_TWO_DIGITS = new Set('BHD IQD JOD KWD LYD OMR TND CLF UYW'.split(' '));

/** Active ISO 4217 currencies with two minor digits. */
const TWO_DIGIT = new Set(
  (
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
    'CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS ' +
    'GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL ' +
    'MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK ' +
    'PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS ' +
    'TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG'
  ).split(' '),
);

export type CurrencyDigits = 0 | 2;

/** Messages quote the amount given, which may be gateway text (fromOrderAmount): redacted. */
function moneyError(path: string, message: string): GatewayValidationError {
  return invalidInput('amount', [{ path, message: redactText(message) }]);
}

/** Minor-unit digits the gateway uses for `currency` (0 or 2); throws for currencies it cannot take. */
export function currencyDigits(currency: string): CurrencyDigits {
  const code = currency.toUpperCase();
  if (ZERO_DIGIT.has(code)) return 0;
  if (TWO_DIGIT.has(code)) return 2;
  if (OVER_TWO_DIGITS.has(code)) {
    throw moneyError(
      'orderCurrency',
      `${code} has more than two minor digits; the gateway accepts at most two decimals`,
    );
  }
  throw moneyError('orderCurrency', `${currency} is not an ISO 4217 currency code this gateway supports`);
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Splits a non-negative decimal string into integer and fraction digits, refusing other notations. */
function parseDecimal(text: string, path: string): { int: string; frac: string } {
  const match = DECIMAL.exec(text.trim());
  if (!match) throw moneyError(path, `"${text}" is not a plain non-negative decimal number`);
  const int = match[1]!.replace(/^0+(?=\d)/, '');
  const frac = (match[2] ?? '').replace(/0+$/, '');
  return { int, frac };
}

function formatAmount(int: string, frac: string, digits: CurrencyDigits, currency: string, path: string) {
  if (frac.length > digits) {
    throw moneyError(
      path,
      digits === 0
        ? `${currency.toUpperCase()} has no minor unit; the amount must be a whole number`
        : `${currency.toUpperCase()} allows at most ${digits} decimals`,
    );
  }
  if (/^0*$/.test(int + frac)) throw moneyError(path, 'must be greater than zero');
  const text = digits === 0 ? int : `${int}.${frac.padEnd(digits, '0')}`;
  if (text.length > 16) throw moneyError(path, 'is longer than the 16 characters the gateway accepts');
  return text;
}

/** `exactAs` names the exact form the caller can pass instead (a string, a bigint). */
function amountText(amount: number | string | bigint, path: string, exactAs: string): string {
  if (typeof amount === 'number' && !Number.isFinite(amount))
    throw moneyError(path, 'must be a finite number');
  // Such a number is already rounded (2^53 + 1 reads as 2^53): only a string or bigint says the amount exactly.
  if (typeof amount === 'number' && Math.abs(amount) > Number.MAX_SAFE_INTEGER)
    throw moneyError(path, `is too large to be exact as a number; pass it as ${exactAs}`);
  return String(amount);
}

/** Major units (e.g. 10.5 USD, 1200 JPY) → gateway `orderAmount` ('10.50', '1200'). */
export function toOrderAmount(amountMajor: number | string, currency: string): string {
  const digits = currencyDigits(currency);
  const { int, frac } = parseDecimal(amountText(amountMajor, 'orderAmount', 'a string'), 'orderAmount');
  return formatAmount(int, frac, digits, currency, 'orderAmount');
}

/** Minor units (e.g. 1050 cents, 1200 yen) → gateway `orderAmount` ('10.50', '1200'). */
export function minorToOrderAmount(minorUnits: number | bigint, currency: string): string {
  const digits = currencyDigits(currency);
  const text = amountText(minorUnits, 'orderAmount', 'a bigint');
  if (!/^\d+$/.test(text))
    throw moneyError('orderAmount', `minor units must be a non-negative integer, got ${text}`);
  const padded = text.padStart(digits + 1, '0');
  const int = padded.slice(0, padded.length - digits);
  const frac = padded.slice(padded.length - digits).replace(/0+$/, '');
  return formatAmount(int.replace(/^0+(?=\d)/, ''), frac, digits, currency, 'orderAmount');
}

/** Integer and fraction digits of a gateway amount, checked against the currency's minor unit. */
function gatewayAmountParts(orderAmount: string, currency: string) {
  const digits = currencyDigits(currency);
  const { int, frac } = parseDecimal(orderAmount, 'orderAmount');
  if (frac.length > digits)
    throw moneyError('orderAmount', `${orderAmount} has more decimals than ${currency}`);
  return { int, frac, digits };
}

/** The amount in minor units; beyond 2^53 a number cannot hold every integer, so it is refused, never rounded. */
function exactMinor(orderAmount: string, parts: { int: string; frac: string; digits: CurrencyDigits }) {
  const minor = Number(parts.int + parts.frac.padEnd(parts.digits, '0'));
  if (!Number.isSafeInteger(minor))
    throw moneyError('orderAmount', `${orderAmount} is too large to convert to a number exactly`);
  return minor;
}

/** Gateway `orderAmount` → integer minor units (cents for USD, yen for JPY). */
export function orderAmountToMinor(orderAmount: string, currency: string): number {
  return exactMinor(orderAmount, gatewayAmountParts(orderAmount, currency));
}

/** Gateway `orderAmount` → the same amount in major units as a number. */
export function fromOrderAmount(orderAmount: string, currency: string): number {
  const parts = gatewayAmountParts(orderAmount, currency);
  // Division is correctly rounded, like parsing the decimal: the nearest number to the same value.
  return exactMinor(orderAmount, parts) / 10 ** parts.digits;
}

/** True when two gateway amounts denote the same value in `currency` ('10.5' equals '10.50'). */
export function sameOrderAmount(a: string, b: string, currency: string): boolean {
  try {
    // Compared as normalized digits, not numbers: exact at any length.
    const left = gatewayAmountParts(a, currency);
    const right = gatewayAmountParts(b, currency);
    return left.int === right.int && left.frac === right.frac;
  } catch {
    return false;
  }
}

/** Every ISO 4217 code of the table, any digit count (upper case). */
export const KNOWN_CURRENCIES: readonly string[] = [...ZERO_DIGIT, ...TWO_DIGIT, ...OVER_TWO_DIGITS];

/** True when `code` is an ISO 4217 currency known to this table (any digit count). */
export function isKnownCurrency(code: string): boolean {
  const upper = code.toUpperCase();
  return ZERO_DIGIT.has(upper) || TWO_DIGIT.has(upper) || OVER_TWO_DIGITS.has(upper);
}
