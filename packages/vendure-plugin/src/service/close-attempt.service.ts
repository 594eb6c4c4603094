import { closeOpenAttempt, redactText } from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import { Logger, OrderService, type RequestContext, TransactionalConnection } from '@vendure/core';
import { loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { ChannelContextService } from '../http/channel-context.service';
import { PaymentRecorderService } from './payment-recorder.service';

export interface CloseAttemptReport {
  closed: boolean;
  /** The attempt's status after the call ('none' when the channel has no such attempt). */
  status: string;
  reason: string;
}

/**
 * The merchant closes an attempt the reconciliation left open for a person (docs/inbound.md#closing-an-attempt):
 * core's closeOpenAttempt records it failed with the note, through the attempt store of the attempt's
 * own channel and method (as the reconciliation records), which frees the order; a private order
 * note says who closed it. Only attempts of the admin's channel: a permission is granted per channel.
 */
@Injectable()
export class CloseAttemptService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly channels: ChannelContextService,
    private readonly recorder: PaymentRecorderService,
    private readonly orderService: OrderService,
  ) {}

  async close(adminCtx: RequestContext, orderNo: string, note: string): Promise<CloseAttemptReport> {
    const row = await this.attemptOf(adminCtx, orderNo);
    // Another channel's attempt is answered like a missing one: its existence is not this admin's to know;
    // another method's hold (other-method-hold.ts) is no gateway attempt.
    if (!row || row.status === 'held')
      return { closed: false, status: 'none', reason: `no payment attempt ${orderNo} in this channel` };
    const ctx = await this.channels.forChannelId(row.channelId);
    if (!ctx)
      return { closed: false, status: row.status, reason: `channel ${row.channelId} no longer exists` };

    const result = await closeOpenAttempt(
      this.recorder.attemptsOf(ctx, row.paymentMethodCode),
      orderNo,
      note,
    );
    if (result.kind === 'refused') {
      const now = await this.attemptOf(adminCtx, orderNo);
      return { closed: false, status: now?.status ?? 'none', reason: redactText(result.reason) };
    }
    const who = adminCtx.session?.user?.identifier ?? `user ${String(adminCtx.activeUserId ?? '?')}`;
    const text = redactText(`Payment attempt ${orderNo} closed by ${who}: ${note.trim()}`);
    Logger.info(`Order ${row.orderCode}: ${text}`, loggerCtx);
    // The admin's own context: the history entry also names them as its author.
    await this.orderService.addNoteToOrder(adminCtx, { id: row.orderId, note: text, isPublic: false });
    return { closed: true, status: 'failed', reason: result.reason };
  }

  private attemptOf(ctx: RequestContext, orderNo: string): Promise<GatewaykitPaymentAttempt | null> {
    return this.connection.rawConnection
      .getRepository(GatewaykitPaymentAttempt)
      .findOne({ where: { orderNo, channelId: String(ctx.channelId) } });
  }
}
