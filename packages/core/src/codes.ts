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

const ALL_ZEROS = /^0+$/;

/**
 * Whether an envelope code says success: all zeros (`00000`, `0000`, `0`, …, or the number 0). The
 * gateway's own clients compare with PHP `==`, for which all of these are equal, so the gateway's
 * success code is only known to be zeros (docs/gateway-protocol.md#response-envelope).
 */
export function isSuccessCode(code: string | number | undefined): boolean {
  if (typeof code === 'number') return code === 0;
  return code !== undefined && ALL_ZEROS.test(code);
}

/** The gateway's code for "this orderNo was already paid" (legacy "Duplicate Order"), as the sandbox answers it. */
export const DUPLICATE_ORDER_CODE = 'I0061';

/** The reason of the unknown outcome an "already paid" (I0061) answer gives; stores keep it as text. */
export const ALREADY_PAID_REASON = 'the gateway reports this order was already paid';

/**
 * Codes the gateway documents as refusing a request before anything was processed
 * (docs/gateway-protocol.md#error-codes): merchant or key (L0001), URL or method (L0002), clock
 * (L0003), signature (L0005), parameters (P0001, P0002). A charge or refund answered with one of them
 * moved no money. Not here, so an unknown outcome for a charge or a refund:
 *  - `S0001`, the default "when there is no specific code": it says nothing about what was processed;
 *  - `L0004` (request-id seen within 30 minutes): this copy was refused, but the copy the gateway saw
 *    first (a replay by a proxy or dispatcher carries the same request-id) may have been processed;
 *  - any code the gateway does not publish (P0003+, card-decline codes, …). I0061 answering a charge
 *    is "already paid" (DUPLICATE_ORDER_CODE), which startPayment reads as unknown too.
 * No card-decline code is published: a decline is `00000` with `orderStatus` `fail`.
 */
const REFUSED_BEFORE_PROCESSING: ReadonlySet<string> = new Set([
  ERROR_CODES.MERCHANT,
  ERROR_CODES.URL,
  ERROR_CODES.TIME,
  ERROR_CODES.SIGN,
  ERROR_CODES.PARAM,
  ERROR_CODES.PARAM_NULL,
]);

/** Whether the code is one the gateway documents as "refused before processing" (REFUSED_BEFORE_PROCESSING). */
export function isRefusedBeforeProcessing(code: string | undefined): boolean {
  return code !== undefined && REFUSED_BEFORE_PROCESSING.has(code);
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
