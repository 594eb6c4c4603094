import { keepElementCard, resolveCardMethod, startPayment } from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import {
  ActiveOrderService,
  ConfigService,
  Logger,
  OrderService,
  PaymentMethodService,
  RequestContext,
  RequestContextService,
  TransactionalConnection,
} from '@vendure/core';
import { parseShopInput, startPaymentInput } from '../api/shop-input';
import { MethodConfigError } from '../config/method-args';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import type { GatewaykitPluginOptions } from '../types';
import { closeUnsent } from './attempt-claim';
import { attemptMode, claimNextAttempt, sendClaimed } from './attempt-guard';
import { type CardInput, chargeSourceFor, misplacedCardInput, withCardMask } from './charge-source';
import {
  isPaymentError,
  paymentError,
  paymentPending,
  resultForOutcome,
  type ShopStartPaymentResult,
} from './checkout-result';
import { MethodConfigService, type ResolvedMethod } from './method-config.service';
import { arrangePayment, ineligibility } from './order-readiness';
import { PaymentRecorderService } from './payment-recorder.service';
import { buildPaymentRequest, clientIp, gatewayUrl, staleRequest, webSiteOf } from './payment-request';
import { SavedCardService } from './saved-card.service';

/** The Shop API's `GatewaykitStartPaymentInput` once parsed (not core's PaymentRequest). */
export interface ShopStartPaymentInput extends CardInput {
  paymentMethodCode: string;
}

/**
 * Starts a gateway payment for the shopper's active order (Shop API mutation). Everything that can be
 * refused (input, method, eligibility, card ownership, amounts, lines) is checked before the attempt
 * is stored; the attempt row then claims the order in the database (attempt-guard.ts), so at most one
 * charge per order is in flight across instances, and only then is the gateway called.
 */
@Injectable()
export class CheckoutService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly activeOrderService: ActiveOrderService,
    private readonly orderService: OrderService,
    private readonly paymentMethodService: PaymentMethodService,
    private readonly configService: ConfigService,
    private readonly requestContextService: RequestContextService,
    private readonly methods: MethodConfigService,
    private readonly recorder: PaymentRecorderService,
    private readonly savedCards: SavedCardService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  async start(ctx: RequestContext, rawInput: unknown): Promise<ShopStartPaymentResult> {
    const parsed = parseShopInput(startPaymentInput, rawInput);
    if (!parsed.ok) return paymentError('INVALID_INPUT', parsed.message);
    const input: ShopStartPaymentInput = parsed.value;
    const active = await this.activeOrderService.getActiveOrder(ctx, undefined);
    if (!active) return paymentError('NO_ACTIVE_ORDER', 'There is no active order');

    let resolved: ResolvedMethod;
    try {
      resolved = await this.methods.resolve(ctx, input.paymentMethodCode);
    } catch (e) {
      if (e instanceof MethodConfigError) return paymentError('METHOD_NOT_AVAILABLE', e.message);
      throw e;
    }
    const misplaced = misplacedCardInput(resolved.config.mode, input);
    if (misplaced) return misplaced;
    // The saved card's ownership read (the customer, then the gateway's list of their cards) does not
    // depend on the order: started now, it runs while the order moves to ArrangingPayment. Read only.
    const savedCard =
      input.savedCardId && ctx.activeUserId
        ? this.savedCards.findOwnedCard(ctx, resolved, input.savedCardId)
        : undefined;
    // Awaited by chargeSourceFor when it gets there; an early return must not leave it unhandled.
    savedCard?.catch(() => undefined);

    const order = await arrangePayment(this.connection, this.orderService, ctx, active.id);
    if (typeof order === 'string') return paymentError('ORDER_STATE_ERROR', order);
    const ineligible = await ineligibility(this.paymentMethodService, ctx, order, resolved.method);
    if (ineligible) return paymentError('INELIGIBLE_PAYMENT_METHOD', ineligible);
    const charge = await chargeSourceFor(resolved.config, input, {
      loggedIn: Boolean(ctx.activeUserId),
      allowRawCardData: Boolean(this.options.allowRawCardData),
      findOwnedCard: (cardId) =>
        savedCard && cardId === input.savedCardId
          ? savedCard
          : this.savedCards.findOwnedCard(ctx, resolved, cardId),
      gatewayCustomerId: (create) => this.savedCards.shopperGatewayCustomerId(ctx, resolved, create),
      resolveCardMethod: (id, shopper, save) => resolveCardMethod(resolved.client, id, shopper, save),
    });
    if (isPaymentError(charge)) return charge;

    const methodCode = resolved.method.code;
    const prepared = buildPaymentRequest(order, charge, {
      precision: this.configService.entityOptions.moneyStrategy?.precision ?? 2,
      customerIp: clientIp(ctx.req?.ip),
      webSite: webSiteOf(this.options),
      returnUrl: gatewayUrl('return', this.options.vendureHost, ctx.channel.token, methodCode),
      callbackUrl: gatewayUrl('callback', this.options.vendureHost, ctx.channel.token, methodCode),
    });
    if (isPaymentError(prepared)) return prepared;

    const attempts = this.connection.getRepository(ctx, GatewaykitPaymentAttempt);
    const next = await claimNextAttempt(attempts, {
      orderId: String(order.id),
      orderCode: order.code,
      channelId: String(ctx.channelId),
      paymentMethodCode: methodCode,
      mode: attemptMode(resolved.config),
      amount: prepared.amount,
      orderAmount: prepared.request.amount,
      currency: order.currencyCode,
    });
    if (!next.claimed) {
      // Another attempt for this order may still turn into a charge: never send a second one.
      return paymentPending(
        next.orderNo,
        'A previous payment for this order is still being confirmed by the gateway',
      );
    }
    const { orderNo } = next;
    // Prepared from a read taken before the claim: an attempt that finished in between (a double
    // click) has recorded its payment by now, and this one must not charge again.
    const current = await this.orderService.findOne(ctx, order.id, ['payments']);
    const stale = current ? staleRequest(prepared.amount, current) : 'changed';
    if (stale) {
      await closeUnsent(
        attempts,
        next.attempt,
        'the order changed before the payment was sent; nothing was sent',
      );
      if (stale === 'changed') {
        return paymentError(
          'ORDER_STATE_ERROR',
          'The order changed while the payment started: start it again',
        );
      }
      const paidBy = await attempts.findOne({
        where: { orderId: String(order.id), status: 'succeeded' },
        order: { createdAt: 'DESC' },
      });
      return paymentPending(
        paidBy?.orderNo ?? orderNo,
        'The order was paid by another payment meanwhile; nothing was charged',
      );
    }
    const sent = await sendClaimed(attempts, next.attempt, () =>
      startPayment(resolved.client, { ...prepared.request, orderNo }),
    );
    if (!sent.sent) return paymentError('INVALID_INPUT', sent.reason);
    const outcome = withCardMask(sent.outcome, charge);

    const adminCtx = await this.requestContextService.create({
      apiType: 'admin',
      channelOrToken: ctx.channel,
      languageCode: ctx.languageCode,
    });
    await this.recorder.record(adminCtx, resolved.method.code, orderNo, outcome);
    if (charge.elementCard) {
      // A saved element card is kept only after a success without redirect; the order is paid either way.
      const kept = await keepElementCard(resolved.client, charge.elementCard, outcome);
      if (kept === 'failed') {
        Logger.warn(`Order ${order.code}: paid, but the card could not be saved for the customer`, loggerCtx);
      }
    }

    return resultForOutcome(outcome, orderNo, order.id);
  }
}
