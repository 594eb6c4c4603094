import { redactText } from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import { HistoryService, type ID, OrderService, type RequestContext } from '@vendure/core';

/**
 * The plugin's private order notes: what the merchant is told on the order itself. Every note is
 * redacted (a gateway message may echo card data). `noteOnce` is for what is said again and again (a
 * repeated notice, a run that finds the same thing each time): the order's history keeps it once.
 */
@Injectable()
export class OrderNotes {
  constructor(
    private readonly orderService: OrderService,
    private readonly historyService: HistoryService,
  ) {}

  async note(ctx: RequestContext, orderId: ID, text: string): Promise<void> {
    await this.orderService.addNoteToOrder(ctx, { id: orderId, note: redactText(text), isPublic: false });
  }

  /** Adds the note unless the order has it already; whether it was added. */
  async noteOnce(ctx: RequestContext, orderId: ID, text: string): Promise<boolean> {
    if (await this.hasNote(ctx, orderId, text)) return false;
    await this.note(ctx, orderId, text);
    return true;
  }

  private async hasNote(ctx: RequestContext, orderId: ID, text: string): Promise<boolean> {
    const { items } = await this.historyService.getHistoryForOrder(ctx, orderId, false, { take: 1000 });
    const wanted = redactText(text);
    return items.some(
      (entry) => entry.type === 'ORDER_NOTE' && (entry.data as { note?: unknown }).note === wanted,
    );
  }
}
