export { containsCardNumber, findCardData, passesLuhn } from './card-data.js';
export { type CardElementSession, openCardElement, SESSION_TOKEN_LIFETIME_MS } from './card-element.js';
export {
  type CardMethodDecision,
  type CardMethodRefusal,
  type CardShopper,
  type CardToKeep,
  decideCardMethod,
  type ElementCardCheckout,
  type KeptCard,
  keepElementCard,
  type RetiredCards,
  removeSavedCard,
  resolveCardMethod,
  saveCardData,
} from './card-method.js';
export { type CheckoutFlow, checkoutFlowOf } from './checkout-flow.js';
export {
  type CallOptions,
  ELEMENT_SCRIPT_PATH,
  GatewayClient,
  type GatewayClientOptions,
  type GatewayEnvironment,
} from './client.js';
export { gatewayClientFor } from './client-cache.js';
export {
  ERROR_CODES,
  GATEWAY_API_VERSION,
  GATEWAY_HOSTS,
  isRefusedBeforeProcessing,
  isSuccessCode,
  OPENAPI_HOSTS,
} from './codes.js';
export { customerIpOf } from './customer-ip.js';
export * from './errors.js';
export {
  type GatewayBaseUrls,
  type GatewayConfig,
  type GatewayConfigInput,
  type GatewayConfigResult,
  type GatewayTarget,
  gatewayBaseUrlsOf,
  parseGatewayConfig,
} from './gateway-config.js';
export { type HeaderSource, readHeader } from './headers.js';
export type { InboundAccount } from './inbound/account-verification.js';
export {
  type AttemptStore,
  type MerchantAlert,
  RecordLaterError,
  type RecordOptions,
  recordOutcome,
} from './inbound/attempt-store.js';
export {
  CLOSE_NOTE_MAX_LENGTH,
  CLOSED_BY_MERCHANT,
  CLOSED_BY_MERCHANT_REASON,
  type CloseAge,
  type CloseAttemptResult,
  closeOpenAttempt,
} from './inbound/close-attempt.js';
export {
  decideInbound,
  type InboundDecision,
  type StoredAttempt,
} from './inbound/decision.js';
export { type ExpressLikeResponse, sendInboundAnswer } from './inbound/express-answer.js';
export {
  type CallbackInput,
  type Handled,
  handleCallback,
  handleReturn,
  type InboundAnswer,
  type InboundLogger,
  type InboundResult,
  KEEP_DEADLINE_MS,
  type KeptCallback,
  KeptCallbackRefusedError,
  keptEventOf,
  keptOrderNoForLog,
  openKeptCallback,
  type ReturnInput,
  recordKeptCallback,
  type SealedCallback,
  sealKeptCallback,
} from './inbound/notifications.js';
export {
  CHECKOUT_CARD_METHOD,
  LOCAL_PAYMENT_METHODS,
  type LocalPaymentMethod,
  normalizeLocalPaymentMethod,
} from './local-methods.js';
export type { GatewayLogEvent, GatewayLogger } from './logger.js';
export {
  type CurrencyDigits,
  currencyDigits,
  fromOrderAmount,
  minorToOrderAmount,
  orderAmountToMinor,
  sameOrderAmount,
  toOrderAmount,
} from './money.js';
export {
  type ChargebackDetails,
  type ChargebackEvent,
  chargebackEventOf,
  chargebackKey,
  type NoticeEvent,
  noticeEventOf,
  type RefundEvent,
  refundEventOf,
} from './notification-events.js';
export {
  type HttpMethod,
  OPERATIONS,
  type OperationDefinition,
  type OperationHost,
  type OperationName,
} from './operations.js';
export { attemptOrderNo, withQuery } from './order-numbers.js';
export {
  isFinalOutcome,
  mergeOutcome,
  outcomeFromCallback,
  outcomeFromOrderFields,
  outcomeFromReturn,
  type PaymentOutcome,
  type PaymentOutcomeStatus,
} from './outcome.js';
export {
  ALREADY_PAID_REASON,
  DUPLICATE_ORDER_CODE,
  type PaymentAddress,
  type PaymentCustomer,
  type PaymentItem,
  type PaymentRequest,
  type PaymentSource,
  type RawCard,
  startPayment,
} from './payment-flow.js';
export {
  ANSWERED_WHILE_ASKED,
  type AttemptReconciliation,
  DEFAULT_PENDING_AFTER_MS,
  DEFAULT_RECONCILE_WINDOW_MS,
  gatewayAcknowledged,
  NO_GATEWAY_RECORD,
  outcomeFromTransaction,
  PAGE_EXPIRED,
  type ReconcileAttemptInput,
  type ReconcileAttemptOptions,
  reconcileAttempt,
  reconciliationRecordOptions,
  recordQueryTime,
  type StoredAnswer,
  stillAsJudged,
  storedAnswerOf,
} from './reconcile.js';
export {
  CHARGEBACK_LOOKBACK_DAYS,
  CHARGEBACK_LOOKBACK_MS,
  type ChargebackListing,
  chargebackEventFromRecord,
  chargebackLookbackMs,
  listRecentChargebacks,
} from './reconcile-chargebacks.js';
export { type ReconciledAttempt, reconcileAndRecord } from './reconcile-record.js';
export { type RefundReconciliation, reconcileRefund, refundEventFromRecord } from './reconcile-refund.js';
export { redact, redactBody, redactCardNumber, redactedErrorText, redactText } from './redact.js';
export { type RefundAsked, type RefundHistory, refundBlockedBy } from './refund-blocks.js';
export {
  findNoticedRefund,
  judgeRefundNotice,
  type KnownRefund,
  type RefundNoticeVerdict,
  withUncountedRefund,
} from './refund-notice.js';
export {
  type BillingDetail,
  billingDetail,
  customerRequest,
  gatewayAddress,
  gatewayPhone,
  type PaymentPerson,
  type RefundOrder,
  refundRequest,
  refundTypeOf,
} from './request-builders.js';
export { newRequestId } from './request-id.js';
export * from './schemas/callbacks.js';
export * from './schemas/charges.js';
export { RECORD_STATUSES, type RecordStatus } from './schemas/common.js';
export * from './schemas/customers.js';
export * from './schemas/envelope.js';
export { fastFormOf, hasCompiledFastForm, safeParseFast } from './schemas/fast-forms.js';
export * from './schemas/hosted-payments.js';
export * from './schemas/payment-methods.js';
export * from './schemas/refunds.js';
export * from './schemas/returns.js';
export * from './schemas/session-tokens.js';
export * from './schemas/transactions.js';
export { type RefundSendResult, sendRefund } from './send-refund.js';
export {
  type CallbackSignInput,
  phpJsonEncode,
  RETURN_FIELD_NAMES,
  type RequestSignInput,
  type ReturnFieldName,
  safeEqualHex,
  signCallback,
  signRequest,
  signReturn,
} from './signing.js';
export { localMethodInput, parseStorefrontInput, savedCardIdInput } from './storefront-input.js';
export {
  CALLBACK_TOLERANCE_MS,
  type VerifiedCallback,
  type VerifyCallbackInput,
  verifyCallback,
} from './verify-callback.js';
export { type ReturnQuery, type VerifyReturnInput, verifyReturn } from './verify-return.js';
