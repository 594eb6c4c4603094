import { Parent, ResolveField, Resolver } from '@nestjs/graphql';
import { Ctx, Order, OrderService, type RelationPaths, Relations, RequestContext } from '@vendure/core';
import type { ShopStartPaymentResult } from '../service/checkout-result';

type PaymentCompleted = Extract<ShopStartPaymentResult, { __typename: 'GatewaykitPaymentCompleted' }>;

/**
 * `GatewaykitPaymentCompleted.order`: the paid order, read only when the query selects it and with only
 * the relations it selects (Vendure's own `activeOrder` reads it the same way). Vendure's default set
 * of order relations is its heaviest read, and a storefront that goes on to its confirmation page
 * needs little more than the code. The id comes from the checkout, never from the storefront.
 */
@Resolver('GatewaykitPaymentCompleted')
export class GatewaykitPaymentCompletedResolver {
  constructor(private readonly orderService: OrderService) {}

  @ResolveField()
  async order(
    @Ctx() ctx: RequestContext,
    @Parent() paid: PaymentCompleted,
    @Relations({ entity: Order, omit: ['aggregateOrder', 'sellerOrders'] }) relations: RelationPaths<Order>,
  ): Promise<Order> {
    const order = await this.orderService.findOne(ctx, paid.orderId, relations);
    if (!order) throw new Error(`Order ${paid.orderId} vanished after its payment`);
    return order;
  }
}
