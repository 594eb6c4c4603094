import {
  LanguageCode,
  Logger,
  type Order,
  type Payment,
  PaymentMethodHandler,
  type RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { HANDLER_CODE, loggerCtx } from '../constants';
import { GatewayRefundService } from '../service/gateway-refund.service';
import { type KeptNotices, keptNoticesNow } from '../service/kept-payment-notices';
import { DEFAULT_REFUND_MODE, parseMethodArgs } from './method-args';
import { redeemTicket } from './payment-tickets';

/** What an admin's cancelPayment of a Settled payment answers. */
export const NO_VOID = 'the gateway has no void; refund the payment instead';

/** Set at bootstrap (handlers are configuration objects, not Nest providers). */
let refunds: GatewayRefundService | undefined;
let connection: TransactionalConnection | undefined;

/** The payment's metadata as committed now (kept-payment-notices.ts); nothing before bootstrap. */
const keptNotices = (ctx: RequestContext, order: Order, payment: Payment): Promise<KeptNotices> =>
  connection ? keptNoticesNow(connection, ctx, order.id, payment.id) : Promise.resolve({});

/**
 * The gateway's PaymentMethodHandler. Payments are started through the plugin's Shop API mutation;
 * this handler only records results the plugin has already verified (signed callback, signed return,
 * or a synchronous confirmCharge answer). A direct `addPaymentToOrder` from a shopper is refused,
 * so nobody can fake a settled payment with forged metadata.
 */
export const gatewaykitPaymentHandler = new PaymentMethodHandler({
  code: HANDLER_CODE,
  description: [
    { languageCode: LanguageCode.en, value: 'Card gateway (V2022-03): cards, hosted page, local methods' },
  ],
  args: {
    gatewayNo: { type: 'string', label: [{ languageCode: LanguageCode.en, value: 'Gateway number' }] },
    signKey: {
      type: 'string',
      label: [{ languageCode: LanguageCode.en, value: 'Sign key' }],
      ui: { component: 'password-form-input' },
    },
    environment: {
      type: 'string',
      defaultValue: 'test',
      label: [{ languageCode: LanguageCode.en, value: 'Environment (test, live, custom)' }],
      ui: {
        component: 'select-form-input',
        options: [{ value: 'test' }, { value: 'live' }, { value: 'custom' }],
      },
    },
    baseUrl: {
      type: 'string',
      required: false,
      label: [{ languageCode: LanguageCode.en, value: 'Base URL (environment custom, e.g. the sandbox)' }],
    },
    mode: {
      type: 'string',
      defaultValue: 'hosted',
      label: [{ languageCode: LanguageCode.en, value: 'Payment mode' }],
      ui: {
        component: 'select-form-input',
        options: [{ value: 'card' }, { value: 'hosted' }, { value: 'local' }],
      },
    },
    localMethod: {
      type: 'string',
      required: false,
      label: [{ languageCode: LanguageCode.en, value: 'Local method name (mode local), e.g. Alipay' }],
    },
    refunds: {
      type: 'string',
      defaultValue: DEFAULT_REFUND_MODE,
      label: [
        {
          languageCode: LanguageCode.en,
          value: "Refunds: through the gateway, or manual (refund in the gateway's merchant portal)",
        },
      ],
      ui: { component: 'select-form-input', options: [{ value: 'gateway' }, { value: 'manual' }] },
    },
  },

  init: (injector) => {
    refunds = injector.get(GatewayRefundService);
    connection = injector.get(TransactionalConnection);
  },

  createPayment: (_ctx, order, _amount, args, metadata) => {
    // Validates again so a broken configuration is reported where it is used.
    parseMethodArgs(args as Record<string, string>);
    const verified = redeemTicket(metadata);
    if (!verified) {
      Logger.warn(`Refused an unverified payment for order ${order.code}`, loggerCtx);
      throw new Error('Payments with this method must be started with the gatewaykitStartPayment mutation');
    }
    const metadataOut = { ...verified.metadata, public: verified.publicMetadata };
    if (verified.state === 'Declined') {
      return {
        amount: verified.amount,
        state: 'Declined' as const,
        errorMessage: verified.errorMessage ?? 'Declined by the gateway',
        ...(verified.tradeNo ? { transactionId: verified.tradeNo } : {}),
        metadata: metadataOut,
      };
    }
    return {
      amount: verified.amount,
      state: 'Settled' as const,
      ...(verified.tradeNo ? { transactionId: verified.tradeNo } : {}),
      metadata: metadataOut,
    };
  },

  // The gateway sells in one step (no separate capture): a recorded payment is already settled.
  // Vendure saves the payment it read before calling these two, metadata included: each answers the
  // metadata as committed, so the save does not erase what a notice kept meanwhile (kept-payment-notices.ts).
  settlePayment: async (ctx, order, payment) => ({
    success: true,
    ...(await keptNotices(ctx, order, payment)),
  }),

  // The gateway has no void endpoint. A Settled payment's money is taken: calling it Cancelled would
  // tell the admin the shopper was not charged while they were, so it stays Settled (Vendure answers
  // CancelPaymentError with this message) and the way back is a refund. The handler records nothing
  // else that holds money (payment-state.ts: Settled or Declined), so cancelling any other payment
  // (a Declined row) only tidies Vendure's record.
  cancelPayment: async (ctx, order, payment) => {
    const kept = await keptNotices(ctx, order, payment);
    return payment.state === 'Settled'
      ? { success: false, state: 'Settled' as const, errorMessage: NO_VOID, ...kept }
      : { success: true, ...kept };
  },

  // Through the gateway (`refunds: gateway`): Pending until the refund notice; `manual`: Pending until an
  // administrator refunds in the merchant portal and calls `settleRefund`.
  createRefund: (ctx, input, amount, order, payment, args) => {
    if (!refunds) throw new Error('GatewaykitPlugin is not initialised: refunds cannot be sent');
    return refunds.create(ctx, input.reason, amount, order, payment, args as Record<string, string>);
  },
});
