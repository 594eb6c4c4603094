import { redactText } from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import type { SortOrder } from '@vendure/common/lib/generated-types';
import { ConfigService, HistoryService, type ID, OrderService, type RequestContext } from '@vendure/core';

/** The administrator a note names: their identifier, else their user id. */
export function administratorName(ctx: RequestContext): string {
  return ctx.session?.user?.identifier ?? `user ${String(ctx.activeUserId ?? '?')}`;
}

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
    private readonly configService: ConfigService,
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

  /**
   * The order's notes, newest first, as many as the store's list limit allows (a larger page would be
   * refused): a repeat comes soon after what it repeats.
   */
  private async hasNote(ctx: RequestContext, orderId: ID, text: string): Promise<boolean> {
    const { items } = await this.historyService.getHistoryForOrder(ctx, orderId, false, {
      take: this.configService.apiOptions.adminListQueryLimit,
      sort: { createdAt: 'DESC' as SortOrder },
      filter: { type: { eq: 'ORDER_NOTE' } },
    });
    const wanted = redactText(text);
    return items.some((entry) => (entry.data as { note?: unknown }).note === wanted);
  }
}
