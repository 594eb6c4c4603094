/**
 * The gateway's signing recipe (docs/signing.md).
 * sign-info = hex(HMAC-SHA256(signKey, join('.', nonEmpty[H, P, Q, B]))) where
 *   H = gateway-no + request-id + request-time (+ version for callbacks),
 *   P = path parameter values ordered by parameter NAME,
 *   Q = query values ordered by key (values only, unencoded),
 *   B = the exact body string on the wire.
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';

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
  const keys = Object.keys(record);
  // Most calls have no or one value: skip the sort and the intermediate arrays for them.
  if (keys.length === 0) return '';
  if (keys.length === 1) return String(record[keys[0] as string]);
  keys.sort();
  let out = '';
  for (const key of keys) out += String(record[key]);
  return out;
}

/** The exact string that is HMAC'd for an API request. */
export function buildRequestSignString(input: RequestSignInput): string {
  const head = `${input.gatewayNo}${input.requestId}${input.requestTime}`;
  return joinNonEmpty(
    joinNonEmpty(joinNonEmpty(head, valuesByName(input.pathParams)), valuesByName(input.query)),
    input.body ?? '',
  );
}

/** `left.right`, dropping an empty side (no doubled or trailing dots); no intermediate arrays. */
function joinNonEmpty(left: string, right: string): string {
  if (right.length === 0) return left;
  return left.length === 0 ? right : `${left}.${right}`;
}

/**
 * HMAC-SHA256 (RFC 2104) as two one-shot hashes over cached key pads: H(K^opad ‖ H(K^ipad ‖ m)).
 * createHmac imports the key into a new native object on every call, which costs more than hashing
 * a gateway-sized message; the sandbox and the client sign or verify once per request. Only for
 * ASCII keys of at most one block, where K^ipad is itself ASCII and so can be prefixed to the message
 * as a string; any other key goes through createHmac. Results are identical (checked in the tests).
 */
interface KeyPads {
  /** K^ipad as a 64-character ASCII string. */
  inner: string;
  /** 96 bytes: K^opad, then room for the inner digest. Reused: signing is synchronous. */
  outer: Buffer;
}

const SHA256_BLOCK = 64;
const PAD_CACHE_LIMIT = 64;
const padCache = new Map<string, KeyPads | null>();

function padsOf(signKey: string): KeyPads | null {
  let pads = padCache.get(signKey);
  if (pads !== undefined) return pads;
  pads = null;
  // UTF-8 length equal to the string length: every character is ASCII (one byte each).
  if (signKey.length <= SHA256_BLOCK && Buffer.byteLength(signKey, 'utf8') === signKey.length) {
    let inner = '';
    const outer = Buffer.alloc(SHA256_BLOCK + 32);
    for (let i = 0; i < SHA256_BLOCK; i += 1) {
      const byte = i < signKey.length ? signKey.charCodeAt(i) : 0;
      inner += String.fromCharCode(byte ^ 0x36);
      outer[i] = byte ^ 0x5c;
    }
    pads = { inner, outer };
  }
  // A handful of merchants per process is normal; an unbounded set of keys must not grow memory.
  if (padCache.size >= PAD_CACHE_LIMIT) padCache.clear();
  padCache.set(signKey, pads);
  return pads;
}

export function hmacSha256Hex(signKey: string, message: string): string {
  const pads = padsOf(signKey);
  if (!pads) return createHmac('sha256', signKey).update(message, 'utf8').digest('hex');
  // The inner digest travels as a 32-char 'binary' (latin1) string: cheaper than a new Buffer per call.
  pads.outer.write(hash('sha256', pads.inner + message, 'binary'), SHA256_BLOCK, 'latin1');
  return hash('sha256', pads.outer, 'hex');
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
  return joinNonEmpty(head, input.body);
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

/** U+2028 / U+2029: JSON.stringify leaves them raw, PHP escapes them. */
const LINE_TERMINATOR = /[\u2028\u2029]/;

/**
 * JSON as PHP's json_encode writes it with JSON_UNESCAPED_UNICODE: compact, '/' written as '\/',
 * non-ASCII characters left as they are except U+2028 and U+2029, which PHP still writes as
 * `\u2028` / `\u2029` (only JSON_UNESCAPED_LINE_TERMINATORS keeps them). The gateway sends callbacks
 * in this form, and merchants using its PHP SDK verify by re-encoding this way, so this exact
 * serialization must be produced.
 */
export function phpJsonEncode(value: unknown): string {
  const json = JSON.stringify(value).replace(/\//g, '\\/');
  // Tested first: they are rare, so ordinary bodies skip the extra passes.
  return LINE_TERMINATOR.test(json) ? json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') : json;
}
