/**
 * Header checks of every API request, in the gateway's terms (docs/signing.md#verifying-requests):
 * gateway-no known (L0001), request-time within ±10 min of the virtual clock (L0003), sign-info over
 * the raw body bytes received (L0005), request-id unused for 30 min (L0004).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { VirtualClock } from './clock.js';
import { ERROR_CODES, safeEqualHex, signRequest } from './core.js';
import { GatewayReply } from './replies.js';

export interface Merchant {
  gatewayNo: string;
  signKey: string;
}

const REQUEST_TIME_TOLERANCE_MS = 10 * 60_000;
const REQUEST_ID_WINDOW_MS = 30 * 60_000;
/** At most this many remembered request-ids (about 100 MB); beyond it the L0004 check covers the newest ones. */
const REQUEST_ID_LIMIT = 1_000_000;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** request-ids seen per merchant, expiring on the virtual clock. */
export class RequestIdRegistry {
  // Insertion order is arrival order, so expiry only ever looks at the front of the map.
  private readonly seen = new Map<string, number>();
  private lastExpiry = 0;

  constructor(private readonly clock: VirtualClock) {}

  /** Records the id; false when it was already used within the window. */
  claim(gatewayNo: string, requestId: string): boolean {
    const now = this.clock.now();
    // Expiry runs at most once per virtual second; lookups below still compare times exactly.
    if (now - this.lastExpiry >= 1000 || now < this.lastExpiry) {
      this.lastExpiry = now;
      this.expire(now);
    }
    const key = `${gatewayNo}\u0000${requestId}`;
    const at = this.seen.get(key);
    if (at !== undefined) {
      if (Math.abs(now - at) < REQUEST_ID_WINDOW_MS) return false;
      // Re-inserted at the back, so the map stays in arrival order for expiry.
      this.seen.delete(key);
    }
    this.seen.set(key, now);
    if (this.seen.size > REQUEST_ID_LIMIT) {
      // Under sustained load the window could hold millions of ids; the oldest go first.
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return true;
  }

  clear(): void {
    this.seen.clear();
    this.lastExpiry = 0;
  }

  private expire(now: number): void {
    for (const [key, at] of this.seen) {
      if (now - at < REQUEST_ID_WINDOW_MS) break;
      this.seen.delete(key);
    }
  }
}

export interface SignedRequest {
  headers: IncomingHttpHeaders;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  /** The body exactly as received: the signature covers these bytes, never a re-serialization. */
  rawBody: string;
}

export function verifyRequest(
  request: SignedRequest,
  merchants: ReadonlyMap<string, Merchant>,
  clock: VirtualClock,
  requestIds: RequestIdRegistry,
): Merchant {
  const gatewayNo = header(request.headers, 'gateway-no');
  const merchant = gatewayNo ? merchants.get(gatewayNo) : undefined;
  if (!merchant)
    throw new GatewayReply(
      ERROR_CODES.MERCHANT,
      gatewayNo ? 'unknown gateway-no' : 'gateway-no header missing',
    );

  const requestTime = header(request.headers, 'request-time');
  // No leading zero: the signed text runs request-id and request-time together, so a digit moved from
  // the end of a captured request's id to the front of its time would keep its signature under a new id.
  if (!requestTime || !/^[1-9]\d{0,15}$/.test(requestTime)) {
    throw new GatewayReply(ERROR_CODES.TIME, 'request-time must be milliseconds since the epoch');
  }
  if (Math.abs(Number(requestTime) - clock.now()) > REQUEST_TIME_TOLERANCE_MS) {
    throw new GatewayReply(
      ERROR_CODES.TIME,
      'request-time differs from the gateway time by more than 10 minutes',
    );
  }

  const requestId = header(request.headers, 'request-id');
  if (!requestId || requestId.length > 64) {
    throw new GatewayReply(ERROR_CODES.PARAM_NULL, 'request-id header missing or longer than 64 characters');
  }

  const signInfo = header(request.headers, 'sign-info');
  const expected = signRequest({
    signKey: merchant.signKey,
    gatewayNo: merchant.gatewayNo,
    requestId,
    requestTime,
    pathParams: request.pathParams,
    query: request.query,
    body: request.rawBody,
  });
  if (!signInfo || !safeEqualHex(signInfo, expected)) throw new GatewayReply(ERROR_CODES.SIGN);

  // Claimed only after the signature holds, so a forged request cannot burn a merchant's ids.
  if (!requestIds.claim(merchant.gatewayNo, requestId)) {
    throw new GatewayReply(ERROR_CODES.DUPLICATE, 'request-id was already used within 30 minutes');
  }
  return merchant;
}
