/**
 * The one seam to @gatewaykit/core. The sandbox must speak exactly the wire protocol the client
 * speaks, so signing, codes, schemas and the operations table all come from core, never copies.
 */
export {
  checkoutPaymentRequestSchema,
  confirmChargeRequestSchema,
  createCustomerRequestSchema,
  createPaymentMethodRequestSchema,
  DUPLICATE_ORDER_CODE,
  ERROR_CODES,
  GATEWAY_API_VERSION,
  LOCAL_PAYMENT_METHODS,
  listCustomersQuerySchema,
  localPaymentRequestSchema,
  newRequestId,
  normalizeLocalPaymentMethod,
  OPERATIONS,
  phpJsonEncode,
  RETURN_FIELD_NAMES,
  redact,
  redactBody,
  redactText,
  safeEqualHex,
  safeParseFast,
  signCallback,
  signRequest,
  signReturn,
  updatePaymentMethodRequestSchema,
} from '@gatewaykit/core';
