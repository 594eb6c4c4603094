import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import {
  ACTIVE_ORDER_INPUT_FIELD_NAME,
  ActiveOrderService,
  IllegalOperationError,
  Logger,
  TransactionalConnection,
} from '@vendure/core';
import type { Observable } from 'rxjs';
import { loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { onOneConnection } from '../service/one-connection';
import { owedAttemptsOf } from '../service/open-charge';
import { shopMutationOf } from './shop-mutation';

/**
 * Shop API mutations that change the active order's lines, total, addresses, customer, currency or
 * state. Some need the order back in AddingItems (transitionOrderToState first); coupons and addresses
 * change it in ArrangingPayment as well; every transition is refused (cancelling the order would leave
 * the charge's success no order to pay).
 */
const ORDER_CHANGES = new Set([
  'addItemToOrder',
  'addItemsToOrder',
  'removeOrderLine',
  'removeAllOrderLines',
  'adjustOrderLine',
  'applyCouponCode',
  'removeCouponCode',
  'transitionOrderToState',
  'setOrderShippingAddress',
  'setOrderBillingAddress',
  'unsetOrderShippingAddress',
  'unsetOrderBillingAddress',
  'setOrderCustomFields',
  'setOrderShippingMethod',
  'setCurrencyCodeForOrder',
  'setCustomerForOrder',
]);

/** What the shopper is told (a GraphQL error with Vendure's ILLEGAL_OPERATION code). */
export const ORDER_CHANGE_REFUSED =
  'A card payment through the gateway is still open for this order and may yet be charged: the order cannot change until its outcome is known';

/**
 * While this plugin's charge for the active order is owed an answer (started, pending, unknown: it may
 * have taken the shopper's money), the Shop API may not change the order: the charge's success would
 * otherwise settle an order whose total, contents or addresses are no longer what was charged (an
 * overpaid order to refund by hand, or a success the order refuses and the merchant must release). A
 * gateway page the shopper left does not block a change, as on Medusa, whose counterpart refuses cart
 * changes while a charge is open (docs/SECURITY.md §5). Judged before Vendure's resolver runs, from a
 * plain read: a change already past this check when the charge is claimed can still land (a window of
 * milliseconds); the recorder then notes an overpaid order, or keeps a success the order refuses for the
 * merchant (§6), never silently.
 */
@Injectable()
export class OrderChangeGuardInterceptor implements NestInterceptor {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly activeOrders: ActiveOrderService,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const mutation = shopMutationOf(context, ORDER_CHANGES);
    if (!mutation) return next.handle();
    const { field, ctx, args } = mutation;
    const open = await onOneConnection(this.connection, ctx, async (phase) => {
      const input = args[ACTIVE_ORDER_INPUT_FIELD_NAME] as Record<string, unknown> | undefined;
      const order = await this.activeOrders.getActiveOrder(phase, input);
      if (!order) return undefined;
      const charge = await this.connection
        .getRepository(phase, GatewaykitPaymentAttempt)
        .findOne({ where: owedAttemptsOf(order.id) });
      return charge ? { order, charge } : undefined;
    });
    if (!open) return next.handle();
    Logger.warn(
      `Order ${open.order.code}: ${field} refused, gateway attempt ${open.charge.orderNo} is ${open.charge.status}`,
      loggerCtx,
    );
    throw new IllegalOperationError(ORDER_CHANGE_REFUSED);
  }
}
