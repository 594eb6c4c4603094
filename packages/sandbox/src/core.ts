/**
 * The one seam to @gatewaykit/core. The sandbox must speak exactly the wire protocol the client
 * speaks, so signing, codes, schemas and the operations table all come from core, never copies.
 * What the gateway itself sends (a signed callback, a signed return query) comes from core's
 * `testing` subpath: it exists to build the gateway's messages for whoever plays the gateway, which
 * is the sandbox's whole job, so its callbacks and returns and the ones test suites forge are the
 * same code.
 */
export {
  checkoutPaymentRequestSchema,
  confirmChargeRequestSchema,
  createCustomerRequestSchema,
  createPaymentMethodRequestSchema,
  createRefundRequestSchema,
  DUPLICATE_ORDER_CODE,
  ELEMENT_SCRIPT_PATH,
  ERROR_CODES,
  GATEWAY_API_VERSION,
  LOCAL_PAYMENT_METHODS,
  listChargebacksQuerySchema,
  listCustomersQuerySchema,
  listTransactionsQuerySchema,
  localPaymentRequestSchema,
  minorToOrderAmount,
  newRequestId,
  normalizeLocalPaymentMethod,
  OPERATIONS,
  orderAmountToMinor,
  phpJsonEncode,
  RETURN_FIELD_NAMES,
  redact,
  redactBody,
  redactText,
  SESSION_TOKEN_LIFETIME_MS,
  safeEqualHex,
  safeParseFast,
  signRequest,
  updatePaymentMethodRequestSchema,
} from '@gatewaykit/core';
export { signedCallback, signedReturnQuery } from '@gatewaykit/core/testing';
