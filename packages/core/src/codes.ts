/** Result codes of the gateway (docs/gateway-protocol.md#error-codes). */
export const ERROR_CODES = {
  SUCCESS: '00000',
  /** The error table lists `0000` as success; some operations answer it. */
  SUCCESS_SHORT: '0000',
  GENERIC: 'S0001',
  MERCHANT: 'L0001',
  URL: 'L0002',
  TIME: 'L0003',
  DUPLICATE: 'L0004',
  SIGN: 'L0005',
  PARAM: 'P0001',
  PARAM_NULL: 'P0002',
} as const;

export function isSuccessCode(code: string | undefined): boolean {
  return code === ERROR_CODES.SUCCESS || code === ERROR_CODES.SUCCESS_SHORT;
}

export const GATEWAY_API_VERSION = 'V2022-03';

export const GATEWAY_HOSTS = {
  test: 'https://testpay.asiabill.com',
  live: 'https://safepay.asiabill.com',
} as const;

/**
 * Base URLs of the gateway's OpenAPI host, which serves refunds, transaction and chargeback queries
 * (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks); the version path follows them.
 */
export const OPENAPI_HOSTS = {
  test: 'https://api-uat.asiabill.com/openApi',
  live: 'https://openapi.asiabill.com/openApi',
} as const;
