/**
 * Verifies a callback (webhook) from the gateway (docs/signing.md#callbacks): headers present,
 * request-time within ±10 minutes, HMAC over the merchant's own gateway-no + request-id + request-time +
 * version and the RAW body bytes, compared case-insensitively in constant time.
 */
import { SignatureVerificationError } from './errors.js';
import { type HeaderSource, readHeader } from './headers.js';
import { type CallbackEvent, callbackEventSchema, isKnownCallbackEventType } from './schemas/callbacks.js';
import { safeParseFast } from './schemas/fast-forms.js';
import { buildCallbackSignString, hmacSha256Hex, phpJsonEncode, safeEqualHex } from './signing.js';

export const CALLBACK_TOLERANCE_MS = 10 * 60 * 1000;

export interface VerifyCallbackInput {
  /** The body exactly as received (string or bytes), never a parsed object. */
  rawBody: string | Uint8Array;
  headers: HeaderSource;
  /** The merchant's own gateway number (not the one in the headers). */
  gatewayNo: string;
  signKey: string;
  now?: number;
  toleranceMs?: number;
  /** Also accept a signature over PHP's re-encoding of the parsed body, as the official SDK checks. Default true. */
  allowReencodedBody?: boolean;
}

export interface VerifiedCallback extends CallbackEvent {
  requestId: string;
  requestTime: number;
}

function fail(message: string, code = 'SIGNATURE_VERIFICATION'): never {
  throw new SignatureVerificationError(`Callback rejected: ${message}`, { code });
}

function rawText(rawBody: unknown): string {
  if (typeof rawBody === 'string') return rawBody;
  if (rawBody instanceof Uint8Array)
    return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
  return fail(
    'verifyCallback needs the raw request body (string or Buffer) exactly as received, but got ' +
      `${rawBody === null ? 'null' : typeof rawBody}. Keep the raw body in your framework (e.g. express.raw(), ` +
      "Medusa's preserveRawBody, Vendure's rawBody) instead of the parsed JSON.",
    'RAW_BODY_REQUIRED',
  );
}

/**
 * An event of a type core does not know may carry no `data` object: it is read with empty data, so it
 * is acknowledged like any unknown type. A known type still needs its data.
 */
function unknownTypeWithoutData(json: unknown): unknown {
  if (typeof json !== 'object' || json === null) return json;
  const { type, data } = json as { type?: unknown; data?: unknown };
  const dataIsObject = typeof data === 'object' && data !== null && !Array.isArray(data);
  if (typeof type !== 'string' || isKnownCallbackEventType(type) || dataIsObject) return json;
  return { ...json, data: {} };
}

export function verifyCallback(input: VerifyCallbackInput): VerifiedCallback {
  const body = rawText(input.rawBody);
  const header = (name: string) => readHeader(input.headers, name)?.trim();
  const requestId = header('request-id');
  const requestTimeText = header('request-time');
  const signInfo = header('sign-info');
  const version = header('version');
  const headerGatewayNo = header('gateway-no');
  if (!requestId || !requestTimeText || !signInfo || !version) {
    fail('the request-id, request-time, version and sign-info headers are required', 'CALLBACK_HEADERS');
  }
  if (headerGatewayNo && headerGatewayNo !== input.gatewayNo) {
    fail(`it is addressed to gateway ${headerGatewayNo}, not to this merchant's gateway`, 'CALLBACK_GATEWAY');
  }
  const requestTime = Number(requestTimeText);
  const now = input.now ?? Date.now();
  if (
    // No leading zero: the signed text runs request-id and request-time together, so a zero moved
    // from one to the other would keep the signature (docs/signing.md#callbacks).
    !/^[1-9]\d{0,15}$/.test(requestTimeText) ||
    Math.abs(now - requestTime) > (input.toleranceMs ?? CALLBACK_TOLERANCE_MS)
  ) {
    fail(
      'request-time is missing or more than 10 minutes away from now (stale or replayed)',
      'CALLBACK_STALE',
    );
  }
  const head = { gatewayNo: input.gatewayNo, requestId, requestTime: requestTimeText, version };
  const matches = (text: string) =>
    safeEqualHex(hmacSha256Hex(input.signKey, buildCallbackSignString({ ...head, body: text })), signInfo);

  let parsedJson: unknown;
  let jsonError = false;
  try {
    parsedJson = JSON.parse(body);
  } catch {
    jsonError = true;
  }
  // Re-encoding can throw (JSON nested deeper than the stack, sent by anyone): that is no match, not a 500.
  const reencodedMatches = () => {
    try {
      return matches(phpJsonEncode(parsedJson));
    } catch {
      return false;
    }
  };
  const verified = matches(body) || (!jsonError && input.allowReencodedBody !== false && reencodedMatches());
  if (!verified) fail('the sign-info signature does not match (wrong sign key, or the body was changed)');
  if (jsonError) fail('the body is not JSON', 'CALLBACK_MALFORMED');
  const event = safeParseFast(callbackEventSchema, unknownTypeWithoutData(parsedJson));
  if (!event.success) fail('the body is not a {type, data} event', 'CALLBACK_MALFORMED');
  return { ...(event.data as CallbackEvent), requestId, requestTime };
}
