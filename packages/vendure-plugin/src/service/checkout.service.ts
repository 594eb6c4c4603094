import { customerIpOf, keepElementCard, resolveCardMethod, startPayment } from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import {
  ActiveOrderService,
  ChannelService,
  ConfigService,
  type ID,
  Logger,
  Order,
  OrderService,
  PaymentMethodService,
  RequestContext,
  RequestContextService,
  TransactionalConnection,
} from '@vendure/core';
import { parseShopInput, startPaymentInput } from '../api/shop-input';
import { MethodConfigError } from '../config/method-args';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx } from '../constants';
import { GatewaykitElementCardBinding } from '../entity/element-card-binding.entity';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import type { GatewaykitPluginOptions } from '../types';
import { closeUnsent } from './attempt-claim';
import { attemptMode, claimNextAttempt, sendClaimed } from './attempt-guard';
import { type CardInput, chargeSourceFor, misplacedCardInput, withCardMask } from './charge-source';
import {
  answerFromRecording,
  isPaymentError,
  type PaymentErrorResult,
  type PaymentPendingResult,
  paymentError,
  paymentPending,
  type ShopStartPaymentResult,
} from './checkout-result';
import { MethodConfigService, type ResolvedMethod } from './method-config.service';
import { onOneConnection } from './one-connection';
import { OTHER_CHANNEL_MESSAGE, orderInRequestChannel } from './order-channel';
import { OrderElementCardCheckout } from './order-element-card';
import { arrangePayment, ineligibility, isPaidMeanwhile } from './order-readiness';
import { OTHER_METHOD_IN_FLIGHT } from './other-method-hold';
import { PaymentRecorderService } from './payment-recorder.service';
import {
  buildPaymentRequest,
  gatewayUrl,
  type PreparedRequest,
  staleRequest,
  webSiteOf,
} from './payment-request';
import { type SavedCard, SavedCardService } from './saved-card.service';
import { UNAPPLIED_ANSWER } from './unapplied-charge';

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
    private readonly channelService: ChannelService,
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
    // Phases on one pooled connection each (one-connection.ts), none held across a gateway call.
    const located = await onOneConnection(this.connection, ctx, (phase) => this.locate(ctx, phase, input));
    if (isPaymentError(located)) return located;
    const { resolved, orderId, savedCard } = located;
    // A fresh element card is bound to this order (docs/card-element.md#one-checkout-per-element-card).
    const elementCheckout = new OrderElementCardCheckout(
      this.connection.getRepository(ctx, GatewaykitElementCardBinding),
      String(orderId),
    );
    const chargeSource = () =>
      chargeSourceFor(resolved.config, input, {
        loggedIn: Boolean(ctx.activeUserId),
        allowRawCardData: Boolean(this.options.allowRawCardData),
        findOwnedCard: (cardId) =>
          savedCard && cardId === input.savedCardId
            ? savedCard
            : this.savedCards.findOwnedCard(ctx, resolved, cardId),
        gatewayCustomerId: (create) => this.savedCards.shopperGatewayCustomerId(ctx, resolved, create),
        resolveCardMethod: (id, shopper, save) =>
          // Saved cards mostly come through savedCardId: this field names cards fresh from the element.
          resolveCardMethod(resolved.client, id, shopper, save, elementCheckout, { ownCardsFirst: false }),
      });
    // An element card is read and bound before the order's state or eligibility may refuse the payment:
    // a start refused after it leaves the card this order's, never free for whoever names its id next.
    const elementCharge = input.elementPaymentMethodId ? await chargeSource() : undefined;
    if (elementCharge && isPaymentError(elementCharge)) return elementCharge;

    const ready = await onOneConnection(this.connection, ctx, (phase) =>
      this.arrange(phase, orderId, resolved),
    );
    if (!('order' in ready)) return ready;
    const { order } = ready;
    const charge = elementCharge ?? (await chargeSource());
    if (isPaymentError(charge)) return charge;

    const methodCode = resolved.method.code;
    const prepared = buildPaymentRequest(order, charge, {
      precision: this.configService.entityOptions.moneyStrategy?.precision ?? 2,
      customerIp: customerIpOf(ctx.req?.ip),
      webSite: webSiteOf(this.options),
      returnUrl: gatewayUrl('return', this.options.vendureHost, ctx.channel.token, methodCode),
      callbackUrl: gatewayUrl('callback', this.options.vendureHost, ctx.channel.token, methodCode),
    });
    if (isPaymentError(prepared)) return prepared;

    const claim = await onOneConnection(this.connection, ctx, (phase) =>
      this.claim(phase, order, resolved, prepared),
    );
    if (!('attempt' in claim)) return claim;
    const { orderNo } = claim;
    const attempts = this.connection.getRepository(ctx, GatewaykitPaymentAttempt);
    const sent = await sendClaimed(attempts, claim.attempt, () =>
      startPayment(resolved.client, { ...prepared.request, orderNo }),
    );
    if (!sent.sent) return paymentError('INVALID_INPUT', sent.reason);
    const outcome = withCardMask(sent.outcome, charge);

    const adminCtx = await this.requestContextService.create({
      apiType: 'admin',
      channelOrToken: ctx.channel,
      languageCode: ctx.languageCode,
    });
    const recorded = await onOneConnection(this.connection, adminCtx, (phase) =>
      this.recorder.record(phase, methodCode, orderNo, outcome),
    );
    const answer = answerFromRecording(recorded, outcome, orderNo, order.id);
    if (isPaymentError(answer) && answer.errorCode === 'PAID_NOT_APPLIED') return answer;
    if (charge.elementCard) {
      // A saved element card is kept only after a success without redirect; the order is paid either way.
      const kept = await keepElementCard(resolved.client, charge.elementCard, outcome);
      if (kept === 'failed') {
        Logger.warn(`Order ${order.code}: paid, but the card could not be saved for the customer`, loggerCtx);
      }
    }

    return answer;
  }

  /**
   * The active order, in this channel, and the method with the card input it takes, on `phase`'s
   * connection. The saved card's ownership read (the customer, then the gateway's list of their cards)
   * does not depend on the order: started here with the request's own context, it runs while the order
   * moves on and outlives the phase.
   */
  private async locate(
    ctx: RequestContext,
    phase: RequestContext,
    input: ShopStartPaymentInput,
  ): Promise<
    PaymentErrorResult | { resolved: ResolvedMethod; orderId: ID; savedCard?: Promise<SavedCard | undefined> }
  > {
    const active = await this.activeOrderService.getActiveOrder(phase, undefined);
    if (!active) return paymentError('NO_ACTIVE_ORDER', 'There is no active order');
    if (!(await orderInRequestChannel(this.connection, this.channelService, phase, active.id))) {
      return paymentError('ORDER_OF_ANOTHER_CHANNEL', OTHER_CHANNEL_MESSAGE);
    }

    let resolved: ResolvedMethod;
    try {
      resolved = await this.methods.resolve(phase, input.paymentMethodCode);
    } catch (e) {
      if (e instanceof MethodConfigError) return paymentError('METHOD_NOT_AVAILABLE', e.message);
      throw e;
    }
    const misplaced = misplacedCardInput(resolved.config.mode, input);
    if (misplaced) return misplaced;
    const savedCard =
      input.savedCardId && ctx.activeUserId
        ? this.savedCards.findOwnedCard(ctx, resolved, input.savedCardId)
        : undefined;
    // Awaited by chargeSourceFor when it gets there; an early return must not leave it unhandled.
    savedCard?.catch(() => undefined);
    return { resolved, orderId: active.id, ...(savedCard ? { savedCard } : {}) };
  }

  /** The order moved to ArrangingPayment, and whether the method may pay it, on `phase`'s connection. */
  private async arrange(
    phase: RequestContext,
    orderId: ID,
    resolved: ResolvedMethod,
  ): Promise<PaymentErrorResult | PaymentPendingResult | { order: Order }> {
    const order = await arrangePayment(this.connection, this.orderService, phase, orderId);
    if (typeof order === 'string') return paymentError('ORDER_STATE_ERROR', order);
    if (isPaidMeanwhile(order)) {
      return this.paidMeanwhile(phase, orderId, `The order is already paid (${order.paidMeanwhile})`);
    }
    const ineligible = await ineligibility(this.paymentMethodService, phase, order, resolved.method);
    if (ineligible) return paymentError('INELIGIBLE_PAYMENT_METHOD', ineligible);
    return { order };
  }

  /**
   * Claims the order for attempt n+1 (attempt-guard.ts) and checks, after the claim, that nothing paid
   * or changed the order since it was read, on `phase`'s connection. Each statement commits on its
   * own, so the claim is in the database before the charge is sent.
   */
  private async claim(
    phase: RequestContext,
    order: Order,
    resolved: ResolvedMethod,
    prepared: PreparedRequest,
  ): Promise<ShopStartPaymentResult | { orderNo: string; attempt: GatewaykitPaymentAttempt }> {
    const attempts = this.connection.getRepository(phase, GatewaykitPaymentAttempt);
    const next = await claimNextAttempt(attempts, {
      orderId: String(order.id),
      orderCode: order.code,
      channelId: String(phase.channelId),
      paymentMethodCode: resolved.method.code,
      mode: attemptMode(resolved.config),
      amount: prepared.amount,
      orderAmount: prepared.request.amount,
      currency: order.currencyCode,
    });
    if (!next.claimed && next.unapplied) return paymentError('PAID_NOT_APPLIED', UNAPPLIED_ANSWER);
    if (!next.claimed && next.otherMethod) {
      // Another method is paying the order right now: its answer decides whether a charge is needed.
      return paymentError('ORDER_STATE_ERROR', OTHER_METHOD_IN_FLIGHT);
    }
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
    const current = await this.orderService.findOne(phase, order.id, ['payments']);
    const stale = current
      ? staleRequest({ amount: prepared.amount, currency: order.currencyCode }, current)
      : 'changed';
    if (!stale) return { orderNo, attempt: next.attempt };
    await closeUnsent(
      attempts,
      next.attempt,
      'the order changed before the payment was sent; nothing was sent',
    );
    if (stale === 'changed') {
      return paymentError('ORDER_STATE_ERROR', 'The order changed while the payment started: start it again');
    }
    return this.paidMeanwhile(phase, order.id, { orderNo });
  }

  /**
   * The answer to a start that found its order paid by another start (a double click): pending, under
   * the attempt that paid it, as nothing was charged. `otherwise`: the orderNo to name, or the refusal,
   * when no gatewaykit attempt paid it.
   */
  private async paidMeanwhile(
    phase: RequestContext,
    orderId: ID,
    otherwise: { orderNo: string } | string,
  ): Promise<PaymentPendingResult | PaymentErrorResult> {
    const paidBy = await this.connection.getRepository(phase, GatewaykitPaymentAttempt).findOne({
      where: { orderId: String(orderId), status: 'succeeded' },
      order: { createdAt: 'DESC' },
    });
    const message = 'The order was paid by another payment meanwhile; nothing was charged';
    if (paidBy) return paymentPending(paidBy.orderNo, message);
    return typeof otherwise === 'string'
      ? paymentError('ORDER_STATE_ERROR', otherwise)
      : paymentPending(otherwise.orderNo, message);
  }
}
