/** @gatewaykit/sandbox: a stateful local emulator of the card gateway API V2022-03. */

export {
  type CallbackAttempt,
  type CallbackChaos,
  type CallbackDelivery,
  type CallbackType,
  type DeliveryState,
  MAX_ATTEMPTS,
  RETRY_SCHEDULE_MS,
  type TradeNoticeType,
  type TransactionCallbackType,
} from './callbacks.js';
export { type CardBehaviour, TEST_CARDS, type TestCard } from './cards.js';
export {
  CHARGEBACK_REASON,
  CHARGEBACK_REPLY_DAYS,
  type ChargebackInput,
} from './chargebacks.js';
export type { SandboxState } from './control.js';
export {
  createElementPaymentMethod,
  type ElementBillingDetail,
  type ElementCard,
  type ElementPaymentMethodInput,
  TEST_BILLING_DETAIL,
} from './element/test-helper.js';
export { FAULT_KINDS, type FaultInput, type FaultKind, type FaultRule } from './faults.js';
export {
  REFUND_FAIL_REASON,
  type RefundOutcomeInput,
  type RefundRequest,
  type SettleRefundInput,
} from './refunds.js';
export { DUPLICATE_ORDER_CODE } from './replies.js';
export {
  DEFAULT_MERCHANT,
  type Sandbox,
  type SandboxClock,
  type SandboxOptions,
  startSandbox,
} from './server.js';
export { type PageOutcome, submitSandboxPage, TEST_CARD_NUMBERS, testCardForm } from './shopper.js';
export type { Merchant } from './signature-check.js';
export type {
  ChargebackRecord,
  CustomerRecord,
  OrderRecord,
  PaymentMethodRecord,
  RefundOutcomeRule,
  RefundRecord,
  RefundStatus,
  RequestLogEntry,
} from './store.js';
