import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import {
  ACTIVE_ORDER_INPUT_FIELD_NAME,
  ActiveOrderService,
  Logger,
  PaymentMethod,
  type RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { type Observable, of } from 'rxjs';
import { HANDLER_CODE, loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { attemptClockNow } from '../service/attempt-clock';
import { onOneConnection } from '../service/one-connection';
import { holdOrderForOtherMethod } from '../service/other-method-hold';
import { isUnappliedCharge, UNAPPLIED_ANSWER } from '../service/unapplied-charge';
import { releasedWhenAnswered } from './released-when-answered';
import { shopMutationOf } from './shop-mutation';

/** The Shop API mutation this guards. */
const PAYMENT_MUTATIONS = new Set(['addPaymentToOrder']);

/** What the shopper is told; the storefront shows IneligiblePaymentMethodError's message. */
const OPEN_CHARGE_MESSAGE =
  'A card payment through the gateway is still open for this order and may yet be charged: another payment method cannot be used until its outcome is known';

/** Said when two other-method payments for one order race (two tabs): the first one decides. */
const OTHER_PAYMENT_MESSAGE = 'Another payment for this order is in progress: wait for its result';

type Refusal = Record<string, string>;

/**
 * Vendure lets the Shop API's `addPaymentToOrder` pay an order with any method while this plugin's
 * charge for it is open (started, pending, unknown, or a gateway page): the other handler's
 * createPayment could charge the shopper and the gateway charge could still succeed, paying the order
 * twice. This refuses it before Vendure's resolver (so before any handler) runs, as an
 * IneligiblePaymentMethodError; and while it runs, the order's slot is held (other-method-hold.ts),
 * so no gateway charge can start for the order until its answer is in (docs/SECURITY.md §5).
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
    const mutation = shopMutationOf(context, PAYMENT_MUTATIONS);
    if (!mutation) return next.handle();
    const { ctx } = mutation;
    const args = mutation.args as { input?: { method?: unknown } } & Record<string, unknown>;
    // Its reads and the hold's claim wait for a pooled connection once, not once each (one-connection.ts);
    // the hold is released later, after the mutation, through the request's own context.
    const guard = await onOneConnection(this.connection, ctx, (phase) => this.hold(phase, ctx, args));
    if (!guard) return next.handle();
    if ('refusal' in guard) return of(guard.refusal);
    return releasedWhenAnswered(next.handle(), guard.release);
  }

  /** Nothing to hold (not another method of this channel, or no active order), a refusal, or the hold. */
  private async hold(
    ctx: RequestContext,
    requestCtx: RequestContext,
    args: { input?: { method?: unknown } } & Record<string, unknown>,
  ): Promise<{ refusal: Refusal } | { release: () => Promise<void> } | undefined> {
    const code = args.input?.method;
    if (typeof code !== 'string') return undefined;
    const method = await this.connection.getRepository(ctx, PaymentMethod).findOne({
      where: { code, channels: { id: ctx.channelId } },
    });
    // An unknown method is Vendure's to refuse; the plugin's own are refused by their handler.
    if (!method || method.handler.code === HANDLER_CODE) return undefined;
    const input = args[ACTIVE_ORDER_INPUT_FIELD_NAME] as Record<string, unknown> | undefined;
    const order = await this.activeOrders.getActiveOrder(ctx, input);
    if (!order) return undefined;
    const attempts = this.connection.getRepository(ctx, GatewaykitPaymentAttempt);
    const hold = await holdOrderForOtherMethod(
      attempts,
      order,
      ctx.channelId,
      code,
      attemptClockNow(),
      this.connection.getRepository(requestCtx, GatewaykitPaymentAttempt),
    );
    if (hold.held) return { release: hold.release };
    const otherPayment = hold.by?.status === 'held';
    const unapplied = hold.by ? isUnappliedCharge(hold.by) : false;
    Logger.warn(
      otherPayment
        ? `Order ${order.code}: payment with "${code}" refused, another payment for it is in progress`
        : `Order ${order.code}: payment with "${code}" refused, gateway attempt ${hold.by?.orderNo ?? '?'} is ${unapplied ? 'charged but not applied' : (hold.by?.status ?? 'open')}`,
      loggerCtx,
    );
    // A charge Vendure could not add keeps the order until the merchant releases it (unapplied-charge.ts).
    const message = otherPayment ? OTHER_PAYMENT_MESSAGE : unapplied ? UNAPPLIED_ANSWER : OPEN_CHARGE_MESSAGE;
    // An ErrorResult of the mutation's union (Vendure resolves it by __typename).
    return {
      refusal: {
        __typename: 'IneligiblePaymentMethodError',
        errorCode: 'INELIGIBLE_PAYMENT_METHOD_ERROR',
        message,
        eligibilityCheckerMessage: message,
      },
    };
  }
}
