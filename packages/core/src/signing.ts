/**
 * The gateway's signing recipe (reference/gateway.md §4, §6.4, §7).
 * sign-info = hex(HMAC-SHA256(signKey, join('.', nonEmpty[H, P, Q, B]))) where
 *   H = gateway-no + request-id + request-time (+ version for callbacks),
 *   P = path parameter values ordered by parameter NAME,
 *   Q = query values ordered by key (values only, unencoded),
 *   B = the exact body string on the wire.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface RequestSignInput {
  gatewayNo: string;
  requestId: string;
  requestTime: string | number;
  pathParams?: Readonly<Record<string, string>> | undefined;
  query?: Readonly<Record<string, string | number>> | undefined;
  body?: string | undefined;
}

function valuesByName(record: Readonly<Record<string, string | number>> | undefined): string {
  if (!record) return '';
  return Object.keys(record)
    .sort()
    .map((key) => String(record[key]))
    .join('');
}

/** The exact string that is HMAC'd for an API request. */
export function buildRequestSignString(input: RequestSignInput): string {
  const parts = [
    `${input.gatewayNo}${input.requestId}${input.requestTime}`,
    valuesByName(input.pathParams),
    valuesByName(input.query),
    input.body ?? '',
  ];
  return parts.filter((part) => part.length > 0).join('.');
}

export function hmacSha256Hex(signKey: string, message: string): string {
  return createHmac('sha256', signKey).update(message, 'utf8').digest('hex');
}

/** sign-info for an outgoing API request: lowercase hex, as the official SDK sends it. */
export function signRequest(input: RequestSignInput & { signKey: string }): string {
  return hmacSha256Hex(input.signKey, buildRequestSignString(input));
}

export interface CallbackSignInput {
  gatewayNo: string;
  requestId: string;
  requestTime: string | number;
  version: string;
  body: string;
}

/** The exact string that is HMAC'd for a callback: H includes the version header. */
export function buildCallbackSignString(input: CallbackSignInput): string {
  const head = `${input.gatewayNo}${input.requestId}${input.requestTime}${input.version}`;
  return [head, input.body].filter((part) => part.length > 0).join('.');
}

/** sign-info of a callback, UPPERCASE hex as the gateway sends it. */
export function signCallback(input: CallbackSignInput & { signKey: string }): string {
  return hmacSha256Hex(input.signKey, buildCallbackSignString(input)).toUpperCase();
}

/** The 11 fields the gateway appends to returnUrl, in the ASCII order they are signed in. */
export const RETURN_FIELD_NAMES = [
  'code',
  'gatewayNo',
  'maskCardNo',
  'merNo',
  'message',
  'orderAmount',
  'orderCurrency',
  'orderInfo',
  'orderNo',
  'orderStatus',
  'tradeNo',
] as const;

export type ReturnFieldName = (typeof RETURN_FIELD_NAMES)[number];

/** Return signature: decoded values of the 11 fields sorted by name, concatenated; no header part, no dots. */
export function buildReturnSignString(fields: Partial<Record<ReturnFieldName, string>>): string {
  return RETURN_FIELD_NAMES.map((name) => fields[name] ?? '').join('');
}

/** signInfo of a return, UPPERCASE hex. */
export function signReturn(fields: Partial<Record<ReturnFieldName, string>>, signKey: string): string {
  return hmacSha256Hex(signKey, buildReturnSignString(fields)).toUpperCase();
}

/**
 * Case-insensitive, constant-time comparison of two hex signatures. Only the length can differ in time,
 * and the length of an HMAC-SHA256 hex string is public (64).
 */
export function safeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a.toLowerCase(), 'utf8');
  const right = Buffer.from(b.toLowerCase(), 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * JSON as PHP's json_encode writes it with JSON_UNESCAPED_UNICODE: compact, '/' written as '\/',
 * non-ASCII characters left as they are. The gateway sends callbacks in this form, and merchants
 * using its PHP SDK verify by re-encoding this way, so this exact serialization must be produced.
 */
export function phpJsonEncode(value: unknown): string {
  return JSON.stringify(value).replace(/\//g, '\\/');
}
