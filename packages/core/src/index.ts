export { GatewayClient, type CallOptions, type GatewayClientOptions, type GatewayEnvironment } from './client.js';
export { ERROR_CODES, GATEWAY_API_VERSION, GATEWAY_HOSTS, isSuccessCode } from './codes.js';
export * from './errors.js';
export type { GatewayLogEvent, GatewayLogger } from './logger.js';
export {
  LOCAL_PAYMENT_METHODS,
  CHECKOUT_CARD_METHOD,
  normalizeLocalPaymentMethod,
  type LocalPaymentMethod,
} from './local-methods.js';
export {
  currencyDigits,
  fromOrderAmount,
  isKnownCurrency,
  minorToOrderAmount,
  orderAmountToMinor,
  sameOrderAmount,
  toOrderAmount,
  type CurrencyDigits,
} from './money.js';
export { buildOperationPath, getOperation, OPERATIONS, type HttpMethod, type OperationDefinition, type OperationName } from './operations.js';
export { attemptOrderNo, parseAttemptOrderNo, withQuery } from './order-numbers.js';
export {
  assertAmountMatches,
  isFinalOutcome,
  mergeOutcome,
  outcomeFromCallback,
  outcomeFromOrderFields,
  outcomeFromReturn,
  type PaymentOutcome,
  type PaymentOutcomeStatus,
} from './outcome.js';
export {
  DUPLICATE_ORDER_CODE,
  startPayment,
  type PaymentAddress,
  type PaymentAttempt,
  type PaymentMode,
  type RawCard,
} from './payment-flow.js';
export { redact, redactCardNumber } from './redact.js';
export { newRequestId } from './request-id.js';
export * from './schemas/callbacks.js';
export * from './schemas/charges.js';
export * from './schemas/customers.js';
export * from './schemas/envelope.js';
export * from './schemas/hosted-payments.js';
export * from './schemas/payment-methods.js';
export * from './schemas/returns.js';
export {
  buildCallbackSignString,
  buildRequestSignString,
  buildReturnSignString,
  hmacSha256Hex,
  phpJsonEncode,
  RETURN_FIELD_NAMES,
  safeEqualHex,
  signCallback,
  signRequest,
  signReturn,
  type CallbackSignInput,
  type RequestSignInput,
  type ReturnFieldName,
} from './signing.js';
export { medusaStatusFor, STATUS_TABLE, vendureStateFor, type MedusaSessionStatus, type VendurePaymentState } from './status.js';
export { CALLBACK_TOLERANCE_MS, verifyCallback, type VerifiedCallback, type VerifyCallbackInput } from './verify-callback.js';
export { verifyReturn, type ReturnQuery, type VerifyReturnInput } from './verify-return.js';
export { type HeaderSource, readHeader } from './headers.js';
export { issuesOf } from './validation.js';
