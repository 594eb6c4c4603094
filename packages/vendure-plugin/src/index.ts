export {
  type MethodConfig,
  MethodConfigError,
  parseMethodArgs,
} from './config/method-args';
export { gatewaykitPaymentHandler } from './config/payment-handler';
export { HANDLER_CODE, ROUTE_PREFIX } from './constants';
export { type AttemptStatus, GatewaykitPaymentAttempt, OPEN_SLOT } from './entity/payment-attempt.entity';
export { GatewaykitPlugin } from './plugin';
export {
  type ClaimResult,
  claimOpenSlot,
  closeUnsent,
  isUniqueViolation,
  OPEN_ATTEMPT_BLOCK_MS,
  releaseDeadClaims,
} from './service/attempt-claim';
export { vendureAmountToOrderAmount } from './service/vendure-money';
export type { GatewaykitPluginOptions } from './types';
