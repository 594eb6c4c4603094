import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import {
  EventBus,
  Logger,
  OrderService,
  Payment,
  PaymentMethod,
  RefundEvent,
  TransactionalConnection,
} from '@vendure/core';
import { HANDLER_CODE, loggerCtx } from '../constants';

/**
 * Refunds of a method set to `refunds: manual` stay `Pending`: this adds an order history note telling
 * the admin to refund in the merchant portal and then settle the refund (Admin API `settleRefund`).
 * Gateway refunds are settled by their notice instead.
 */
@Injectable()
export class RefundNoteService implements OnApplicationBootstrap {
  constructor(
    private readonly eventBus: EventBus,
    private readonly connection: TransactionalConnection,
    private readonly orderService: OrderService,
  ) {}

  onApplicationBootstrap(): void {
    this.eventBus.ofType(RefundEvent).subscribe((event) => {
      if (event.type !== 'created' || event.refund.state !== 'Pending') return;
      // Refunds made before the `refunds` argument existed carry no marker: they were manual too.
      if ((event.refund.metadata as { gatewaykit?: unknown } | undefined)?.gatewaykit === 'gateway') return;
      this.note(event).catch((e: Error) => Logger.error(`Refund note failed: ${e.message}`, loggerCtx));
    });
  }

  private async note(event: RefundEvent): Promise<void> {
    const { ctx, order } = event;
    const refund = event.refund;
    const payment = await this.connection
      .getRepository(ctx, Payment)
      .findOne({ where: { id: refund.paymentId } });
    const methodCode = payment?.method;
    if (!methodCode) return;
    const method = await this.connection
      .getRepository(ctx, PaymentMethod)
      .findOne({ where: { code: methodCode } });
    if (method?.handler.code !== HANDLER_CODE) return;
    await this.orderService.addNoteToOrder(ctx, {
      id: order.id,
      isPublic: false,
      note:
        `Refund ${refund.id} (${refund.total} minor units) is pending: this payment method's refunds are manual (no refund API call). ` +
        `Refund trade ${payment?.transactionId ?? '?'} in the gateway's merchant portal, then settle the refund here.`,
    });
  }
}
