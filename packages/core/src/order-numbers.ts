/** orderNo of one payment attempt (docs/safety-rules.md#order-numbers): unique per attempt, at most 50 characters. */
import { GatewayValidationError } from './errors.js';

const MAX_ORDER_NO = 50;

/** `${reference}-${attempt}` for platforms whose order reference is reused across attempts (Vendure order code). */
export function attemptOrderNo(reference: string, attempt: number): string {
  const orderNo = `${reference}-${attempt}`;
  if (reference.length === 0 || orderNo.length > MAX_ORDER_NO || !Number.isInteger(attempt) || attempt < 1) {
    const issues = [
      { path: 'orderNo', message: `must be 1–${MAX_ORDER_NO} characters; got ${orderNo.length}` },
    ];
    throw new GatewayValidationError(`Invalid orderNo ${orderNo}`, issues);
  }
  return orderNo;
}

/** Adds query parameters to a URL that may already carry its own. */
export function withQuery(url: string, params: Readonly<Record<string, string>>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
  return target.toString();
}
