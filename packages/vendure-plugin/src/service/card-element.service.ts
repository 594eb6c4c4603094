import { type CardElementSession, openCardElement } from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import {
  ActiveOrderService,
  ChannelService,
  OrderService,
  PaymentMethodService,
  RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { MethodConfigService } from './method-config.service';
import { OTHER_CHANNEL_MESSAGE, orderInRequestChannel } from './order-channel';
import { ineligibility, PAYABLE_ORDER_RELATIONS } from './order-readiness';

/** What the storefront needs to mount the gateway's card element (docs/card-element.md). */
export type CardElement = CardElementSession;

/** Why the element cannot be shown; the resolver answers it as a UserInputError. */
export class CardElementError extends Error {}

/**
 * Mints a session token for the card element of the active order. The token is asked for with the
 * payment method's own credentials (its handler args), so the element's payment method belongs to the
 * same gateway account that will charge it; only card methods the order may be paid with qualify.
 */
@Injectable()
export class CardElementService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly channelService: ChannelService,
    private readonly activeOrderService: ActiveOrderService,
    private readonly orderService: OrderService,
    private readonly paymentMethodService: PaymentMethodService,
    private readonly methods: MethodConfigService,
  ) {}

  async forActiveOrder(ctx: RequestContext, methodCode: string, now = Date.now): Promise<CardElement> {
    const active = await this.activeOrderService.getActiveOrder(ctx, undefined);
    if (!active)
      throw new CardElementError('There is no active order: the card element is shown at checkout');
    if (!(await orderInRequestChannel(this.connection, this.channelService, ctx, active.id))) {
      throw new CardElementError(OTHER_CHANNEL_MESSAGE);
    }
    const resolved = await this.methods.resolve(ctx, methodCode);
    if (resolved.config.mode !== 'card') {
      throw new CardElementError(
        `Payment method "${methodCode}" is a ${resolved.config.mode} method: the card element is only for card methods`,
      );
    }
    const order = await this.orderService.findOne(ctx, active.id, PAYABLE_ORDER_RELATIONS);
    if (!order) throw new CardElementError('There is no active order: the card element is shown at checkout');
    const ineligible = await ineligibility(this.paymentMethodService, ctx, order, resolved.method);
    if (ineligible) throw new CardElementError(ineligible);
    return openCardElement(resolved.client, now);
  }
}
