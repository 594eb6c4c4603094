import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import {
  ACTIVE_ORDER_INPUT_FIELD_NAME,
  ActiveOrderService,
  internal_getRequestContext,
  Logger,
  PaymentMethod,
  type RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { type Observable, of } from 'rxjs';
import { HANDLER_CODE, loggerCtx } from '../constants';
import { openGatewayCharge } from '../service/open-charge';

/** The parts of GraphQL's resolve info this reads. */
interface ResolvedField {
  fieldName: string;
  parentType: { name: string };
}

/** What the shopper is told; the storefront shows IneligiblePaymentMethodError's message. */
export const OPEN_CHARGE_MESSAGE =
  'A card payment through the gateway is still open for this order and may yet be charged: another payment method cannot be used until its outcome is known';

/**
 * Vendure lets the Shop API's `addPaymentToOrder` pay an order with any method while this plugin's
 * charge for it is open (started, pending, unknown): the other handler's createPayment could charge
 * the shopper and the gateway charge could still succeed, paying the order twice. This refuses it
 * before Vendure's resolver (so before any handler) runs, as an IneligiblePaymentMethodError (docs/SECURITY.md §5).
 * The plugin's own methods keep their flow: a direct addPaymentToOrder of them is refused by the
 * payment handler's ticket check.
 */
@Injectable()
export class OtherMethodGuardInterceptor implements NestInterceptor {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly activeOrders: ActiveOrderService,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType<string>() !== 'graphql') return next.handle();
    const info = context.getArgByIndex<ResolvedField | undefined>(3);
    if (info?.parentType.name !== 'Mutation' || info.fieldName !== 'addPaymentToOrder') return next.handle();
    const { req } = context.getArgByIndex<{ req: Parameters<typeof internal_getRequestContext>[0] }>(2);
    const ctx = internal_getRequestContext(req, context);
    if (ctx.apiType !== 'shop') return next.handle();
    const args = context.getArgByIndex<{ input?: { method?: unknown } } & Record<string, unknown>>(1);
    const refusal = await this.refusal(ctx, args);
    return refusal ? of(refusal) : next.handle();
  }

  private async refusal(
    ctx: RequestContext,
    args: { input?: { method?: unknown } } & Record<string, unknown>,
  ): Promise<Record<string, string> | undefined> {
    const code = args.input?.method;
    if (typeof code !== 'string') return undefined;
    // The open charge first: without one (nearly always) the method is not read at all.
    const input = args[ACTIVE_ORDER_INPUT_FIELD_NAME] as Record<string, unknown> | undefined;
    const order = await this.activeOrders.getActiveOrder(ctx, input);
    if (!order) return undefined;
    const open = await openGatewayCharge(this.connection, ctx, order.id);
    if (!open) return undefined;
    const method = await this.connection.getRepository(ctx, PaymentMethod).findOne({
      where: { code, channels: { id: ctx.channelId } },
    });
    // An unknown method is Vendure's to refuse; the plugin's own are refused by their handler.
    if (!method || method.handler.code === HANDLER_CODE) return undefined;
    Logger.warn(
      `Order ${order.code}: payment with "${code}" refused, gateway attempt ${open.orderNo} is ${open.status}`,
      loggerCtx,
    );
    // An ErrorResult of the mutation's union (Vendure resolves it by __typename).
    return {
      __typename: 'IneligiblePaymentMethodError',
      errorCode: 'INELIGIBLE_PAYMENT_METHOD_ERROR',
      message: OPEN_CHARGE_MESSAGE,
      eligibilityCheckerMessage: OPEN_CHARGE_MESSAGE,
    };
  }
}
