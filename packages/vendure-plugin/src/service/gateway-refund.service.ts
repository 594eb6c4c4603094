import { isGatewayError, redactText, UnknownOutcomeError } from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import {
  ConfigService,
  type CreateRefundResult,
  Logger,
  type Order,
  OrderService,
  type Payment,
  type RequestContext,
} from '@vendure/core';
import { parseMethodArgs } from '../config/method-args';
import { loggerCtx } from '../constants';
import { MethodConfigService } from './method-config.service';
import { RefundFlights } from './refund-flights';
import { buildRefundRequest, type RefundMetadata, RefundRequestError } from './refund-request';

type RawArgs = Record<string, string | undefined | null>;

/**
 * The handler's createRefund: a Vendure refund becomes one gateway refund
 * (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks). It stays `Pending` until the
 * gateway's refund notice (or the reconciliation) settles or fails it; a refusal is `Failed` at once
 * with the gateway's message; a lost answer stays `Pending` and is never sent again
 * (docs/safety-rules.md#unknown-outcome).
 */
@Injectable()
export class GatewayRefundService {
  constructor(
    private readonly methods: MethodConfigService,
    private readonly configService: ConfigService,
    private readonly orderService: OrderService,
    private readonly flights: RefundFlights,
  ) {}

  async create(
    ctx: RequestContext,
    reason: string | null | undefined,
    amount: number,
    order: Order,
    payment: Payment,
    args: RawArgs,
  ): Promise<CreateRefundResult> {
    let config: ReturnType<typeof parseMethodArgs>;
    try {
      config = parseMethodArgs(args);
    } catch (error) {
      return this.refused(ctx, order, { gatewaykit: 'gateway' }, describe(error));
    }
    if (config.refunds === 'manual') {
      // RefundNoteService tells the admin to refund in the merchant portal.
      return { state: 'Pending', metadata: { gatewaykit: 'manual' } satisfies RefundMetadata };
    }

    let request: ReturnType<typeof buildRefundRequest>;
    try {
      request = buildRefundRequest({
        orderCode: order.code,
        currency: order.currencyCode,
        precision: this.configService.entityOptions.moneyStrategy?.precision ?? 2,
        payment,
        amount,
        reason,
      });
    } catch (error) {
      if (!(error instanceof RefundRequestError)) throw error;
      return this.refused(ctx, order, { gatewaykit: 'gateway' }, error.message);
    }
    const sent: RefundMetadata = {
      gatewaykit: 'gateway',
      merTrackNo: request.merTrackNo,
      tradeNo: request.tradeNo,
      refundAmount: request.refundAmount,
      currency: order.currencyCode,
      refundType: request.refundType,
    };

    this.flights.begin(request.merTrackNo, ctx);
    try {
      const answer = await this.methods.clientFor(config).refunds.create(request);
      Logger.info(
        `Order ${order.code}: refund ${request.merTrackNo} (${request.refundAmount} ${order.currencyCode}) sent, batchNo ${answer.batchNo}`,
        loggerCtx,
      );
      return {
        state: 'Pending',
        transactionId: answer.batchNo,
        metadata: { ...sent, batchNo: answer.batchNo, status: 'sent' } satisfies RefundMetadata,
      };
    } catch (error) {
      if (isGatewayError(error) && !(error instanceof UnknownOutcomeError)) {
        // The gateway answered with a refusal, or the request provably never left: nothing was refunded.
        this.flights.end(request.merTrackNo);
        return this.refused(ctx, order, sent, error.message);
      }
      // The request may have been carried out: the notice (which names merTrackNo) or the
      // reconciliation decides; sending it again could refund twice.
      const message = `The gateway's answer was lost (${describe(error)}): the refund may have been made. Its notification settles it; check the merchant portal for ${request.merTrackNo} if none arrives.`;
      Logger.warn(`Order ${order.code}: refund ${request.merTrackNo}: ${message}`, loggerCtx);
      await this.note(ctx, order, `Refund ${request.merTrackNo} is pending: ${message}`);
      return { state: 'Pending', metadata: { ...sent, status: 'unknown', message } satisfies RefundMetadata };
    }
  }

  private async refused(
    ctx: RequestContext,
    order: Order,
    metadata: RefundMetadata,
    message: string,
  ): Promise<CreateRefundResult> {
    const text = redactText(message).slice(0, 500);
    Logger.warn(`Order ${order.code}: refund refused: ${text}`, loggerCtx);
    await this.note(ctx, order, `Refund failed, nothing was refunded: ${text}`);
    return { state: 'Failed', metadata: { ...metadata, status: 'refused', message: text } };
  }

  private async note(ctx: RequestContext, order: Order, note: string): Promise<void> {
    await this.orderService.addNoteToOrder(ctx, { id: order.id, note, isPublic: false });
  }
}

function describe(error: unknown): string {
  return redactText(error instanceof Error ? error.message : String(error));
}
