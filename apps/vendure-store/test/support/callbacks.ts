import { signedCallback } from '@gatewaykit/core/testing';
import type { CallbackDelivery, Sandbox } from '@gatewaykit/sandbox';

export interface SignedCallbackOptions {
  url: string;
  gatewayNo: string;
  signKey: string;
  type: string;
  data: Record<string, string>;
  /** Override request-time (ms) to test the replay window. */
  requestTime?: number;
}

/** Posts a callback signed exactly like the gateway does (for forged / stale / cross-channel cases). */
export async function postSignedCallback(
  options: SignedCallbackOptions,
): Promise<{ status: number; body: string }> {
  const { body, headers } = signedCallback({
    gatewayNo: options.gatewayNo,
    signKey: options.signKey,
    body: { type: options.type, data: options.data },
    ...(options.requestTime === undefined ? {} : { requestTime: options.requestTime }),
  });
  const res = await fetch(options.url, { method: 'POST', headers, body });
  return { status: res.status, body: await res.text() };
}

export function callbackUrl(baseUrl: string, channelToken: string, methodCode: string): string {
  return `${baseUrl}/payments/gatewaykit/callback/${channelToken}/${methodCode}`;
}

/** Waits until the sandbox has delivered `count` callbacks of `orderNo`; returns all that order's deliveries. */
export async function deliveredCallbacks(
  sandbox: Sandbox,
  orderNo: string,
  count = 1,
): Promise<CallbackDelivery[]> {
  const deliveries = await sandbox.waitForCallbacks(
    (d) => d.filter((c) => c.orderNo === orderNo && c.state === 'delivered').length >= count,
    20_000,
  );
  return deliveries.filter((c) => c.orderNo === orderNo);
}
