/**
 * `@gatewaykit/core/testing`: what the gateway sends, signed, for the suites that play the gateway (or
 * an attacker who holds some key). One implementation for the sandbox's own tests and every platform
 * suite, so a forged or stale notification in a test is built exactly as the real one would be.
 */
import { randomUUID } from 'node:crypto';
import { GatewayClient } from './client.js';
import { GATEWAY_API_VERSION } from './codes.js';
import {
  phpJsonEncode,
  RETURN_FIELD_NAMES,
  type ReturnFieldName,
  signCallback,
  signReturn,
} from './signing.js';

export interface SignedCallbackInput {
  gatewayNo: string;
  signKey: string;
  /** The exact body, or the event to encode the gateway's way (compact JSON, `\/` escaped). */
  body: string | { type: string; data: Record<string, unknown> };
  /** request-time in ms (default now): set it to test the ±10 minute window. */
  requestTime?: number;
  requestId?: string;
}

/** A callback as the gateway posts it: the raw body and every header, signature included. */
export function signedCallback(input: SignedCallbackInput): {
  body: string;
  headers: Record<string, string>;
} {
  const body =
    typeof input.body === 'string'
      ? input.body
      : phpJsonEncode({ type: input.body.type, data: input.body.data });
  const requestId = input.requestId ?? randomUUID();
  const requestTime = String(input.requestTime ?? Date.now());
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'gateway-no': input.gatewayNo,
      'request-id': requestId,
      'request-time': requestTime,
      version: GATEWAY_API_VERSION,
      'sign-info': signCallback({
        signKey: input.signKey,
        gatewayNo: input.gatewayNo,
        requestId,
        requestTime,
        version: GATEWAY_API_VERSION,
        body,
      }),
    },
  };
}

/** The gateway's return fields for one order: the given ones, `''` for the rest. */
export function returnFields(
  fields: Partial<Record<ReturnFieldName, string>>,
): Record<ReturnFieldName, string> {
  return Object.fromEntries(RETURN_FIELD_NAMES.map((name) => [name, fields[name] ?? ''])) as Record<
    ReturnFieldName,
    string
  >;
}

/** The query the gateway appends to returnUrl: the 11 fields and their signInfo. */
export function signedReturnQuery(
  fields: Partial<Record<ReturnFieldName, string>>,
  signKey: string,
): URLSearchParams {
  const all = returnFields(fields);
  return new URLSearchParams({ ...all, signInfo: signReturn(all, signKey) });
}

/**
 * A full refund made in the gateway's merchant portal, as the suites play it: the gateway's own refund
 * call under a merTrackNo no store made (`portal-…`), so its notice matches no refund of the store.
 * Answers the merTrackNo.
 */
export async function portalRefund(
  merchant: { gatewayNo: string; signKey: string; baseUrl: string },
  tradeNo: string,
  amount: string,
): Promise<string> {
  const portal = new GatewayClient(merchant);
  const merTrackNo = `portal-${randomUUID().slice(0, 8)}`;
  try {
    await portal.refunds.create({
      merTrackNo,
      refundAmount: amount,
      refundReason: 'refunded in the portal',
      refundType: '1',
      tradeNo,
    });
  } finally {
    await portal.close();
  }
  return merTrackNo;
}
