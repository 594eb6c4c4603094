import { phpJsonEncode } from '@gatewaykit/core';
import { signedCallback } from '@gatewaykit/core/testing';
import { GATEWAY_NO, SIGN_KEY } from './global-setup';
import { api, type Json } from './store-api';

interface SigningAccount {
  signKey?: string;
  gatewayNo?: string;
}

/** Headers of a callback signed the way the gateway signs it; the test merchant unless told otherwise. */
export function signedHeaders(
  body: string,
  options: SigningAccount & { requestTime?: number } = {},
): Record<string, string> {
  return signedCallback({
    gatewayNo: options.gatewayNo ?? GATEWAY_NO,
    signKey: options.signKey ?? SIGN_KEY,
    body,
    ...(options.requestTime === undefined ? {} : { requestTime: options.requestTime }),
  }).headers;
}

/**
 * A signed `transaction.success` or `transaction.fail` for `session` (its own amount and currency),
 * posted to `path` (the callback route unless told otherwise).
 */
export function postTransactionCallback(
  session: { id: string; data: Record<string, Json> },
  result: { status: 'success' | 'fail'; tradeNo: string; orderInfo: string },
  options: SigningAccount & { path?: string } = {},
) {
  const body = phpJsonEncode({
    type: `transaction.${result.status}`,
    data: {
      orderNo: session.id,
      tradeNo: result.tradeNo,
      orderStatus: result.status,
      orderAmount: session.data.amount,
      orderCurrency: session.data.currency,
      orderInfo: result.orderInfo,
    },
  });
  return api('POST', options.path ?? '/hooks/gatewaykit/callback', {
    rawBody: body,
    headers: signedHeaders(body, options),
  });
}
