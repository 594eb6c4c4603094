import {
  attemptOrderNo,
  GatewayValidationError,
  type PaymentAddress,
  type PaymentOutcome,
  type PaymentRequest,
  type RawCard,
  startPayment,
} from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import {
  ActiveOrderService,
  ConfigService,
  type EntityRelationPaths,
  Order,
  OrderService,
  PaymentMethodService,
  RequestContext,
  RequestContextService,
  TransactionalConnection,
} from '@vendure/core';
import { parseShopInput, startPaymentInput } from '../api/shop-input';
import { MethodConfigError } from '../config/method-args';
import { GATEWAYKIT_PLUGIN_OPTIONS, ROUTE_PREFIX } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import type { GatewaykitPluginOptions } from '../types';
import { claimOpenSlot, closeUnsent, releaseDeadClaims } from './attempt-claim';
import { gatewayItems } from './gateway-items';
import { MethodConfigService, type ResolvedMethod } from './method-config.service';
import { PaymentRecorderService } from './payment-recorder.service';
import { SavedCardService } from './saved-card.service';
import { vendureAmountToOrderAmount } from './vendure-money';

export interface StartPaymentInput {
  paymentMethodCode: string;
  /** Card mode: a saved card of the logged-in customer. */
  savedCardId?: string | null | undefined;
  /** Card mode, PCI opt-in only: raw card data, sent to the gateway and never stored. */
  card?: RawCard | null | undefined;
}

export type StartPaymentResult =
  | { __typename: 'GatewaykitPaymentRedirect'; url: string; orderNo: string }
  | { __typename: 'GatewaykitPaymentCompleted'; order: Order }
  | { __typename: 'GatewaykitPaymentPending'; orderNo: string; message: string }
  | { __typename: 'GatewaykitPaymentError'; errorCode: string; message: string };

type ErrorResult = Extract<StartPaymentResult, { __typename: 'GatewaykitPaymentError' }>;

const ORDER_RELATIONS: EntityRelationPaths<Order>[] = [
  'payments',
  'customer',
  'lines',
  'lines.productVariant',
];

/**
 * Starts a gateway payment for the shopper's active order (Shop API mutation). Everything that can be
 * refused (input, method, eligibility, card ownership, amounts, lines) is checked before the attempt
 * is stored; the attempt row then claims the order in the database (attempt-claim.ts), so at most one
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

  async start(ctx: RequestContext, rawInput: unknown): Promise<StartPaymentResult> {
    const parsed = parseShopInput(startPaymentInput, rawInput);
    if (!parsed.ok) return error('INVALID_INPUT', parsed.message);
    const input: StartPaymentInput = parsed.value;
    const active = await this.activeOrderService.getActiveOrder(ctx, undefined);
    if (!active) return error('NO_ACTIVE_ORDER', 'There is no active order');

    let resolved: ResolvedMethod;
    try {
      resolved = await this.methods.resolve(ctx, input.paymentMethodCode);
    } catch (e) {
      if (e instanceof MethodConfigError) return error('METHOD_NOT_AVAILABLE', e.message);
      throw e;
    }
    if (resolved.config.mode !== 'card' && (input.card || input.savedCardId)) {
      return error('INVALID_INPUT', 'Invalid input: card and savedCardId are only for card payment methods');
    }

    const ready = await this.arrangePayment(ctx, active.id);
    if (typeof ready === 'string') return error('ORDER_STATE_ERROR', ready);
    const order = ready;
    const ineligible = await this.ineligibility(ctx, order, resolved);
    if (ineligible) return error('INELIGIBLE_PAYMENT_METHOD', ineligible);
    const mode = await this.modeFor(ctx, resolved, input);
    if ('errorCode' in mode) return mode;

    const prepared = this.prepare(ctx, order, resolved, mode);
    if ('errorCode' in prepared) return prepared;

    const attempts = this.connection.getRepository(ctx, GatewaykitPaymentAttempt);
    const orderId = String(order.id);
    await releaseDeadClaims(attempts, orderId);
    const orderNo = attemptOrderNo(order.code, (await attempts.count({ where: { orderId } })) + 1);
    const claim = await claimOpenSlot(attempts, {
      orderNo,
      orderId,
      orderCode: order.code,
      channelId: String(ctx.channelId),
      paymentMethodCode: resolved.method.code,
      mode: resolved.config.mode === 'local' ? `local:${resolved.config.localMethod}` : resolved.config.mode,
      amount: prepared.amount,
      orderAmount: prepared.request.amount,
      currency: order.currencyCode,
    });
    if (!claim.claimed) {
      // Another attempt for this order may still turn into a charge: never send a second one.
      return pending(
        claim.open?.orderNo ?? orderNo,
        'A previous payment for this order is still being confirmed by the gateway',
      );
    }

    const request: PaymentRequest = { ...prepared.request, orderNo };
    let outcome: PaymentOutcome;
    try {
      outcome = await startPayment(resolved.client, request);
    } catch (e) {
      if (!(e instanceof GatewayValidationError)) throw e;
      // Nothing was sent: no Declined payment, the attempt is closed and the order free to pay again.
      await closeUnsent(attempts, claim.attempt, e.message);
      return error('INVALID_INPUT', e.message);
    }
    if (outcome.status === 'succeeded' && !outcome.maskCardNo && mode.maskCardNo) {
      outcome = { ...outcome, maskCardNo: mode.maskCardNo };
    }

    const adminCtx = await this.requestContextService.create({
      apiType: 'admin',
      channelOrToken: ctx.channel,
      languageCode: ctx.languageCode,
    });
    await this.recorder.record(adminCtx, resolved.method.code, orderNo, outcome);

    switch (outcome.status) {
      case 'redirect':
        return { __typename: 'GatewaykitPaymentRedirect', url: outcome.redirectUrl, orderNo };
      case 'succeeded': {
        const paid = await this.orderService.findOne(ctx, order.id);
        if (!paid) throw new Error(`Order ${order.code} vanished`);
        return { __typename: 'GatewaykitPaymentCompleted', order: paid };
      }
      case 'failed':
        return error('PAYMENT_DECLINED', outcome.reason);
      case 'pending':
        return pending(orderNo, outcome.orderInfo ?? 'The payment is pending at the gateway');
      case 'unknown':
        return pending(
          orderNo,
          'The gateway has not confirmed the payment yet; it will be confirmed shortly',
        );
    }
  }

  /** The method's eligibility checker, as Vendure will run it when the payment is added. */
  private async ineligibility(
    ctx: RequestContext,
    order: Order,
    resolved: ResolvedMethod,
  ): Promise<string | undefined> {
    const method = resolved.method;
    if (!method.checker) return undefined;
    const { checker } = await this.paymentMethodService.getMethodAndOperations(ctx, method.code);
    if (!checker) return undefined;
    const eligible = await checker.check(ctx, order, method.checker.args, method);
    if (eligible === false) return `Payment method "${method.code}" is not available for this order`;
    if (typeof eligible === 'string') return eligible;
    return undefined;
  }

  /** Amount, currency and line conversions, all before anything is stored. */
  private prepare(
    ctx: RequestContext,
    order: Order,
    resolved: ResolvedMethod,
    mode: CardMode,
  ): { amount: number; request: Omit<PaymentRequest, 'orderNo'> } | ErrorResult {
    const settled = order.payments
      .filter((p) => p.state === 'Settled' || p.state === 'Authorized')
      .reduce((sum, p) => sum + p.amount, 0);
    const amount = order.totalWithTax - settled;
    if (amount <= 0) return error('NOTHING_TO_PAY', 'The order is already covered by its payments');
    const precision = this.configService.entityOptions.moneyStrategy?.precision ?? 2;
    let orderAmount: string;
    try {
      orderAmount = vendureAmountToOrderAmount(amount, order.currencyCode, precision);
    } catch (e) {
      return error('UNSUPPORTED_AMOUNT', e instanceof Error ? e.message : String(e));
    }
    const goods = gatewayItems(order.lines, order.currencyCode, precision);
    if ('error' in goods) return error('UNSUPPORTED_AMOUNT', goods.error);

    const customer = order.customer;
    if (!customer) return error('ORDER_STATE_ERROR', 'The order has no customer');
    return {
      amount,
      request: {
        source: mode.source,
        amount: orderAmount,
        currency: order.currencyCode,
        customer: {
          email: customer.emailAddress,
          firstName: customer.firstName || 'Customer',
          lastName: customer.lastName || 'Customer',
          ...(customer.phoneNumber ? { phone: customer.phoneNumber } : {}),
          ...(mode.gatewayCustomerId ? { gatewayCustomerId: mode.gatewayCustomerId } : {}),
        },
        billingAddress: toAddress(
          order.billingAddress?.streetLine1 ? order.billingAddress : order.shippingAddress,
        ),
        shippingAddress: toAddress(order.shippingAddress),
        items: goods.items,
        customerIp: clientIp(ctx),
        webSite: this.webSite(),
        returnUrl: this.url('return', ctx, resolved.method.code),
        callbackUrl: this.url('callback', ctx, resolved.method.code),
      },
    };
  }

  /** Moves the order to ArrangingPayment (the state it keeps while a redirect is open). */
  private async arrangePayment(ctx: RequestContext, orderId: Order['id']): Promise<Order | string> {
    return this.connection.withTransaction(ctx, async (tx) => {
      const order = await this.orderService.findOne(tx, orderId, ORDER_RELATIONS);
      if (!order) return 'There is no active order';
      if (order.state === 'ArrangingPayment') return order;
      if (order.state !== 'AddingItems') return `The order cannot be paid in state ${order.state}`;
      const moved = await this.orderService.transitionToState(tx, order.id, 'ArrangingPayment');
      if (!(moved instanceof Order)) return moved.transitionError ?? moved.message;
      return (await this.orderService.findOne(tx, orderId, ORDER_RELATIONS)) ?? 'Order not found';
    });
  }

  private async modeFor(
    ctx: RequestContext,
    resolved: ResolvedMethod,
    input: StartPaymentInput,
  ): Promise<CardMode | ErrorResult> {
    const { config } = resolved;
    if (config.mode === 'hosted') return { source: { kind: 'hosted' } };
    if (config.mode === 'local') return { source: { kind: 'local', method: config.localMethod ?? '' } };
    if (input.savedCardId) {
      if (!ctx.activeUserId) return error('NOT_LOGGED_IN', 'Log in to pay with a saved card');
      const owned = await this.savedCards.findOwnedCard(ctx, resolved, input.savedCardId);
      if (!owned) return error('CARD_NOT_FOUND', 'No such saved card');
      return {
        source: { kind: 'saved-card', customerPaymentMethodId: owned.id, customerId: owned.customerId },
        gatewayCustomerId: owned.customerId,
        maskCardNo: owned.maskCardNo,
      };
    }
    if (input.card) {
      if (!this.options.allowRawCardData) {
        return error(
          'RAW_CARD_NOT_ALLOWED',
          'This store does not accept card data directly; use a saved card',
        );
      }
      return { source: { kind: 'card-data', card: input.card } };
    }
    return error('CARD_REQUIRED', 'Card payments need savedCardId (or card data where allowed)');
  }

  private url(kind: 'callback' | 'return', ctx: RequestContext, methodCode: string): string {
    const host = this.options.vendureHost.replace(/\/+$/, '');
    return `${host}/${ROUTE_PREFIX}/${kind}/${encodeURIComponent(ctx.channel.token)}/${encodeURIComponent(methodCode)}`;
  }

  private webSite(): string {
    if (this.options.webSite) return this.options.webSite;
    try {
      return new URL(this.options.storefrontOrderUrl.replace('{code}', 'x')).host;
    } catch {
      return 'localhost';
    }
  }
}

interface CardMode {
  source: PaymentRequest['source'];
  gatewayCustomerId?: string;
  maskCardNo?: string;
}

function error(errorCode: string, message: string): ErrorResult {
  return { __typename: 'GatewaykitPaymentError', errorCode, message };
}

function pending(orderNo: string, message: string): StartPaymentResult {
  return { __typename: 'GatewaykitPaymentPending', orderNo, message };
}

/** The address fields of Vendure's OrderAddress that the gateway needs. */
interface AddressLike {
  streetLine1?: string;
  streetLine2?: string;
  city?: string;
  province?: string;
  postalCode?: string;
  countryCode?: string;
}

function toAddress(address: AddressLike | undefined): PaymentAddress {
  return {
    line1: address?.streetLine1 || 'n/a',
    ...(address?.streetLine2 ? { line2: address.streetLine2 } : {}),
    city: address?.city || 'n/a',
    country: (address?.countryCode || 'US').toUpperCase(),
    ...(address?.province ? { state: address.province } : {}),
    ...(address?.postalCode ? { postalCode: address.postalCode } : {}),
  };
}

function clientIp(ctx: RequestContext): string {
  const ip = ctx.req?.ip ?? '127.0.0.1';
  return ip.replace(/^::ffff:/, '') || '127.0.0.1';
}
