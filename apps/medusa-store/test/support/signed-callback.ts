import { randomUUID } from 'node:crypto';
import { GATEWAY_API_VERSION, signCallback } from '@gatewaykit/core';
import { GATEWAY_NO, SIGN_KEY } from './global-setup';

/** Headers of a callback signed the way the gateway signs it, with a chosen account, key and time. */
export function signedHeaders(
  body: string,
  options: { signKey?: string; gatewayNo?: string; requestTime?: number } = {},
): Record<string, string> {
  const gatewayNo = options.gatewayNo ?? GATEWAY_NO;
  const requestId = randomUUID();
  const requestTime = String(options.requestTime ?? Date.now());
  const signInfo = signCallback({
    signKey: options.signKey ?? SIGN_KEY,
    gatewayNo,
    requestId,
    requestTime,
    version: GATEWAY_API_VERSION,
    body,
  });
  return {
    'gateway-no': gatewayNo,
    'request-id': requestId,
    'request-time': requestTime,
    version: GATEWAY_API_VERSION,
    'sign-info': signInfo,
  };
}
