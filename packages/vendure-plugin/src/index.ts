export {
  type MethodConfig,
  MethodConfigError,
  parseMethodArgs,
} from './config/method-args';
export { gatewaykitPaymentHandler } from './config/payment-handler';
export { HANDLER_CODE, ROUTE_PREFIX } from './constants';
export { type AttemptStatus, GatewaykitPaymentAttempt } from './entity/payment-attempt.entity';
export { GatewaykitPlugin } from './plugin';
export type { GatewaykitPluginOptions } from './types';
