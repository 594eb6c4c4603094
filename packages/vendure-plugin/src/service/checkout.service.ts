import {
  attemptOrderNo,
  GatewayValidationError,
  type PaymentAddress,
  type PaymentAttempt,
  type PaymentOutcome,
  type RawCard,
  startPayment,
} from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import {
  ActiveOrderService,
  ConfigService,
  Order,
  OrderService,
  RequestContext,
  RequestContextService,
  TransactionalConnection,
} from '@vendure/core';
import { MethodConfigError } from '../config/method-args';
import { GATEWAYKIT_PLUGIN_OPTIONS, ROUTE_PREFIX } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import type { GatewaykitPluginOptions } from '../types';
import { KeyedLock } from './keyed-lock';
import { MethodConfigService, type ResolvedMethod } from './method-config.service';
import { PaymentRecorderService } from './payment-recorder.service';
import { SavedCardService } from './saved-card.service';
import { vendureAmountToOrderAmount } from './vendure-money';

export interface StartPaymentInput {
  paymentMethodCode: string;
  /** Card mode: a saved card of the logged-in customer. */
  savedCardId?: string | null;
  /** Card mode, PCI opt-in only: raw card data, sent to the gateway and never stored. */
  card?: RawCard | null;
}

export type StartPaymentResult =
  | { __typename: 'GatewaykitPaymentRedirect'; url: string; orderNo: string }
  | { __typename: 'GatewaykitPaymentCompleted'; order: Order }
  | { __typename: 'GatewaykitPaymentPending'; orderNo: string; message: string }
  | { __typename: 'GatewaykitPaymentError'; errorCode: string; message: string };

/** An attempt whose result the gateway still owes us blocks new ones, so nobody is charged twice. */
const OPEN_ATTEMPT_BLOCK_MS = 30 * 60 * 1000;

/** Starts a gateway payment for the shopper's active order (Shop API mutation). */
@Injectable()
export class CheckoutService {
  private readonly lock = new KeyedLock();

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly activeOrderService: ActiveOrderService,
    private readonly orderService: OrderService,
    private readonly configService: ConfigService,
    private readonly requestContextService: RequestContextService,
    private readonly methods: MethodConfigService,
    private readonly recorder: PaymentRecorderService,
    private readonly savedCards: SavedCardService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  async start(ctx: RequestContext, input: StartPaymentInput): Promise<StartPaymentResult> {
    const active = await this.activeOrderService.getActiveOrder(ctx, undefined);
    if (!active) return error('NO_ACTIVE_ORDER', 'There is no active order');
    // One attempt at a time per order (double clicks): attempt numbers and the open-attempt check stay exact.
    return this.lock.run(String(active.id), () => this.startForOrder(ctx, input, active.id));
  }

  private async startForOrder(
    ctx: RequestContext,
    input: StartPaymentInput,
    activeId: Order['id'],
  ): Promise<StartPaymentResult> {
    let resolved: ResolvedMethod;
    try {
      resolved = await this.methods.resolve(ctx, input.paymentMethodCode);
    } catch (e) {
      if (e instanceof MethodConfigError) return error('METHOD_NOT_AVAILABLE', e.message);
      throw e;
    }

    // The saved-card ownership check talks to the gateway: overlap it with the order's own DB work.
    const [ready, mode] = await Promise.all([
      this.arrangePayment(ctx, activeId),
      this.modeFor(ctx, resolved, input),
    ]);
    if (typeof ready === 'string') return error('ORDER_STATE_ERROR', ready);
    if ('errorCode' in mode) return mode;
    const order = ready;

    const attempts = this.connection.getRepository(ctx, GatewaykitPaymentAttempt);
    const previous = await attempts.find({ where: { orderId: String(order.id) }, order: { id: 'DESC' } });
    const open = previous.find(
      (a) =>
        (a.status === 'unknown' || a.status === 'pending') &&
        Date.now() - a.createdAt.getTime() < OPEN_ATTEMPT_BLOCK_MS,
    );
    if (open) {
      return pending(
        open.orderNo,
        'A previous payment for this order is still being confirmed by the gateway',
      );
    }

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

    const customer = order.customer;
    if (!customer) return error('ORDER_STATE_ERROR', 'The order has no customer');

    const orderNo = attemptOrderNo(order.code, previous.length + 1);
    const attempt = await this.connection.withTransaction(ctx, (tx) =>
      this.connection.getRepository(tx, GatewaykitPaymentAttempt).save(
        new GatewaykitPaymentAttempt({
          orderNo,
          orderId: String(order.id),
          orderCode: order.code,
          channelId: String(ctx.channelId),
          paymentMethodCode: resolved.method.code,
          mode:
            resolved.config.mode === 'local' ? `local:${resolved.config.localMethod}` : resolved.config.mode,
          amount,
          orderAmount,
          currency: order.currencyCode,
          status: 'started',
          tradeNo: null,
          maskCardNo: null,
          message: null,
          version: 0,
        }),
      ),
    );

    const request: PaymentAttempt = {
      mode: mode.mode,
      orderNo,
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
      items: order.lines.map((line) => ({
        title: line.productVariant?.name ?? 'Item',
        quantity: line.quantity,
        unitPrice: vendureAmountToOrderAmount(line.proratedUnitPriceWithTax, order.currencyCode, precision),
      })),
      customerIp: clientIp(ctx),
      webSite: this.webSite(),
      returnUrl: this.url('return', ctx, resolved.method.code),
      callbackUrl: this.url('callback', ctx, resolved.method.code),
    };

    let outcome: PaymentOutcome;
    try {
      outcome = await startPayment(resolved.client, request);
    } catch (e) {
      if (!(e instanceof GatewayValidationError)) throw e;
      // Nothing was sent: the attempt simply failed.
      outcome = { status: 'failed', orderNo, reason: e.message };
    }
    if (outcome.status === 'succeeded' && !outcome.maskCardNo && mode.maskCardNo) {
      outcome = { ...outcome, maskCardNo: mode.maskCardNo };
    }

    const adminCtx = await this.requestContextService.create({
      apiType: 'admin',
      channelOrToken: ctx.channel,
      languageCode: ctx.languageCode,
    });
    await this.recorder.record(adminCtx, attempt.orderNo, outcome);

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

  /** Moves the order to ArrangingPayment (the state it keeps while a redirect is open). */
  private async arrangePayment(ctx: RequestContext, orderId: Order['id']): Promise<Order | string> {
    return this.connection.withTransaction(ctx, async (tx) => {
      const order = await this.orderService.findOne(tx, orderId, [
        'payments',
        'customer',
        'lines',
        'lines.productVariant',
      ]);
      if (!order) return 'There is no active order';
      if (order.state === 'ArrangingPayment') return order;
      if (order.state !== 'AddingItems') return `The order cannot be paid in state ${order.state}`;
      const moved = await this.orderService.transitionToState(tx, order.id, 'ArrangingPayment');
      if (!(moved instanceof Order)) return moved.transitionError ?? moved.message;
      return (
        (await this.orderService.findOne(tx, orderId, [
          'payments',
          'customer',
          'lines',
          'lines.productVariant',
        ])) ?? 'Order not found'
      );
    });
  }

  private async modeFor(
    ctx: RequestContext,
    resolved: ResolvedMethod,
    input: StartPaymentInput,
  ): Promise<
    | { mode: PaymentAttempt['mode']; gatewayCustomerId?: string; maskCardNo?: string }
    | Extract<StartPaymentResult, { __typename: 'GatewaykitPaymentError' }>
  > {
    const { config } = resolved;
    if (config.mode === 'hosted') return { mode: { kind: 'hosted' } };
    if (config.mode === 'local') return { mode: { kind: 'local', method: config.localMethod ?? '' } };
    if (input.savedCardId) {
      if (!ctx.activeUserId) return error('NOT_LOGGED_IN', 'Log in to pay with a saved card');
      const owned = await this.savedCards.findOwnedCard(ctx, resolved, input.savedCardId);
      if (!owned) return error('CARD_NOT_FOUND', 'No such saved card');
      return {
        mode: { kind: 'saved-card', customerPaymentMethodId: owned.id, customerId: owned.customerId },
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
      return { mode: { kind: 'card-data', card: input.card } };
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

function error(
  errorCode: string,
  message: string,
): Extract<StartPaymentResult, { __typename: 'GatewaykitPaymentError' }> {
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
