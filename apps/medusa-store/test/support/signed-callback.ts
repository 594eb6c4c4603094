import { signedCallback } from '@gatewaykit/core/testing';
import { GATEWAY_NO, SIGN_KEY } from './global-setup';

/** Headers of a callback signed the way the gateway signs it; the test merchant unless told otherwise. */
export function signedHeaders(
  body: string,
  options: { signKey?: string; gatewayNo?: string; requestTime?: number } = {},
): Record<string, string> {
  return signedCallback({
    gatewayNo: options.gatewayNo ?? GATEWAY_NO,
    signKey: options.signKey ?? SIGN_KEY,
    body,
    ...(options.requestTime === undefined ? {} : { requestTime: options.requestTime }),
  }).headers;
}
