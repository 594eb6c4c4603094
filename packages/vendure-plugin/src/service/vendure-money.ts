import { toOrderAmount } from '@gatewaykit/core';

/**
 * Vendure stores every currency with the MoneyStrategy's precision (2 by default, so ¥1200 is 120000).
 * The gateway wants the ISO 4217 amount ('1200' for JPY). Going through the major-unit decimal string
 * avoids the ×100 yen bug; core's toOrderAmount then refuses amounts the currency cannot express.
 */
export function vendureAmountToOrderAmount(amount: number, currency: string, precision: number): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`Invalid Vendure amount ${amount}`);
  if (precision === 0) return toOrderAmount(String(amount), currency);
  const text = String(amount).padStart(precision + 1, '0');
  const major = `${text.slice(0, -precision)}.${text.slice(-precision)}`;
  return toOrderAmount(major, currency);
}
