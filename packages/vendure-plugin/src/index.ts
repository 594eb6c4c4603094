export { ORDER_CHANGE_REFUSED } from './api/order-change-guard.interceptor';
export {
  type MethodConfig,
  MethodConfigError,
  parseMethodArgs,
  type RefundMode,
} from './config/method-args';
export { gatewaykitPaymentHandler } from './config/payment-handler';
export { gatewaykitReconcilePermission } from './config/permissions';
export { RECONCILE_TASK_ID } from './config/reconcile-task';
export { HANDLER_CODE, ROUTE_PREFIX } from './constants';
export { GatewaykitElementCardBinding } from './entity/element-card-binding.entity';
export { type AttemptStatus, GatewaykitPaymentAttempt } from './entity/payment-attempt.entity';
export { GatewaykitRefundIntent } from './entity/refund-intent.entity';
export { GatewaykitPlugin } from './plugin';
export type { CloseAttemptReport } from './service/close-attempt.service';
export { databaseClockMismatch } from './service/database-clock';
export { KEPT_CALLBACKS_QUEUE } from './service/kept-callbacks.service';
export type { ReconcileItem, ReconcileReport } from './service/reconcile.service';
export { RECONCILE_RUN_LOCK } from './service/reconcile-run-lock';
export type { GatewaykitPluginOptions, ReconcileOptions } from './types';
