import { chargebackLookbackMs } from '@gatewaykit/core';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { PluginCommonModule, Type, VendurePlugin } from '@vendure/core';
import { GatewaykitAdminResolver } from './api/admin.resolver';
import { adminApiSchema } from './api/admin-schema';
import { HiddenSignKeyInterceptor } from './api/hidden-sign-key.interceptor';
import { OrderChangeGuardInterceptor } from './api/order-change-guard.interceptor';
import { OtherMethodGuardInterceptor } from './api/other-method-guard.interceptor';
import { GatewaykitPaymentCompletedResolver } from './api/payment-completed.resolver';
import { redactErrorsPlugin } from './api/redact-errors.plugin';
import { GatewaykitPaymentResultResolver, GatewaykitShopResolver } from './api/shop.resolver';
import { ShopRefundMetadataResolver } from './api/shop-refund-metadata.resolver';
import { shopApiSchema } from './api/shop-schema';
import { gatewaykitCurrencyGuardProcess } from './config/currency-guard-process';
import { GatewayCustomerIdSubscriber } from './config/gateway-customer-id.subscriber';
import { MethodArgsSubscriber } from './config/method-args.subscriber';
import { OrderReadsSubscriber } from './config/order-reads.subscriber';
import { gatewaykitPaymentHandler } from './config/payment-handler';
import { gatewaykitReconcilePermission } from './config/permissions';
import { reconcileTask } from './config/reconcile-task';
import { gatewaykitRefundProcess } from './config/refund-process';
import { StaleOrderLineSaveSubscriber } from './config/stale-order-line-save.subscriber';
import { StaleOrderSaveSubscriber } from './config/stale-order-save.subscriber';
import { gatewaykitStaleTransitionGuardProcess } from './config/stale-transition-guard-process';
import { GATEWAYKIT_PLUGIN_OPTIONS, ROUTE_PREFIX } from './constants';
import { GatewaykitElementCardBinding } from './entity/element-card-binding.entity';
import { GatewaykitPaymentAttempt } from './entity/payment-attempt.entity';
import { GatewaykitRefundIntent } from './entity/refund-intent.entity';
import { GatewaykitCallbackController } from './http/callback.controller';
import { ChannelContextService } from './http/channel-context.service';
import { GatewayEndpointService } from './http/gateway-endpoint.service';
import { rawBodyMiddleware } from './http/raw-body.middleware';
import { GatewaykitReturnController } from './http/return.controller';
import { CardElementService } from './service/card-element.service';
import { CheckoutService } from './service/checkout.service';
import { CloseAttemptService } from './service/close-attempt.service';
import { CloseRefundIntentService } from './service/close-refund-intent.service';
import { DatabaseClockCheck } from './service/database-clock';
import { GatewayNoticeService } from './service/gateway-notice.service';
import { GatewayRefundService } from './service/gateway-refund.service';
import { HandOver } from './service/hand-over.service';
import { KeptCallbacks } from './service/kept-callbacks.service';
import { MethodConfigService } from './service/method-config.service';
import { OrderNotes } from './service/order-notes.service';
import { PaymentRecorderService } from './service/payment-recorder.service';
import { ReconcileService } from './service/reconcile.service';
import { RefundReconciliation } from './service/reconcile-refunds.service';
import { checkReconcileOptions } from './service/reconcile-settings';
import { RefundFlights } from './service/refund-flights';
import { RefundIntents } from './service/refund-intents';
import { RefundLock } from './service/refund-lock';
import { RefundNoteService } from './service/refund-note.service';
import { SavedCardService } from './service/saved-card.service';
import type { GatewaykitPluginOptions } from './types';

/**
 * Card gateway (API V2022-03) for Vendure 3.7: hosted page, local methods, cards and saved cards,
 * refunds through the gateway, chargebacks, and a scheduled reconciliation.
 *
 * ```ts
 * plugins: [GatewaykitPlugin.init({ vendureHost: 'https://shop.example.com',
 *   storefrontOrderUrl: 'https://store.example.com/order/{code}' })]
 * ```
 * Then create a PaymentMethod with the `gatewaykit` handler per channel (credentials are its args).
 */
@VendurePlugin({
  imports: [PluginCommonModule],
  entities: [GatewaykitPaymentAttempt, GatewaykitElementCardBinding, GatewaykitRefundIntent],
  controllers: [GatewaykitCallbackController, GatewaykitReturnController],
  providers: [
    { provide: GATEWAYKIT_PLUGIN_OPTIONS, useFactory: () => GatewaykitPlugin.options },
    ChannelContextService,
    GatewayEndpointService,
    MethodConfigService,
    PaymentRecorderService,
    SavedCardService,
    CheckoutService,
    CardElementService,
    RefundNoteService,
    DatabaseClockCheck,
    RefundFlights,
    RefundLock,
    RefundIntents,
    GatewayRefundService,
    OrderNotes,
    GatewayNoticeService,
    HandOver,
    RefundReconciliation,
    ReconcileService,
    CloseAttemptService,
    CloseRefundIntentService,
    KeptCallbacks,
    MethodArgsSubscriber,
    StaleOrderSaveSubscriber,
    OrderReadsSubscriber,
    StaleOrderLineSaveSubscriber,
    GatewayCustomerIdSubscriber,
    { provide: APP_INTERCEPTOR, useClass: OtherMethodGuardInterceptor },
    { provide: APP_INTERCEPTOR, useClass: OrderChangeGuardInterceptor },
    { provide: APP_INTERCEPTOR, useClass: HiddenSignKeyInterceptor },
  ],
  shopApiExtensions: {
    schema: shopApiSchema,
    resolvers: [
      GatewaykitShopResolver,
      GatewaykitPaymentResultResolver,
      GatewaykitPaymentCompletedResolver,
      ShopRefundMetadataResolver,
    ],
  },
  adminApiExtensions: {
    schema: adminApiSchema,
    resolvers: [GatewaykitAdminResolver],
  },
  configuration: (config) => {
    config.paymentOptions.paymentMethodHandlers.push(gatewaykitPaymentHandler);
    config.orderOptions.process = [
      ...(config.orderOptions.process ?? []),
      gatewaykitCurrencyGuardProcess,
      gatewaykitStaleTransitionGuardProcess,
    ];
    config.paymentOptions.refundProcess = [
      ...(config.paymentOptions.refundProcess ?? []),
      gatewaykitRefundProcess,
    ];
    config.authOptions.customPermissions = [
      ...(config.authOptions.customPermissions ?? []),
      gatewaykitReconcilePermission,
    ];
    config.schedulerOptions = {
      ...config.schedulerOptions,
      tasks: [...(config.schedulerOptions?.tasks ?? []), reconcileTask(GatewaykitPlugin.options.reconcile)],
    };
    config.apiOptions.apolloServerPlugins = [
      ...(config.apiOptions.apolloServerPlugins ?? []),
      redactErrorsPlugin,
    ];
    config.apiOptions.middleware.push({
      route: `/${ROUTE_PREFIX}/callback`,
      handler: rawBodyMiddleware,
      beforeListen: true,
    });
    config.customFields.Customer.push({
      name: 'gatewaykitCustomerId',
      type: 'string',
      nullable: true,
      public: false,
      readonly: true,
      label: [{ languageCode: 'en' as never, value: 'Gateway customer id' }],
    });
    return config;
  },
  dashboard: '../dashboard/index.tsx',
  compatibility: '^3.7.0',
})
// biome-ignore lint/complexity/noStaticOnlyClass: Vendure's plugin pattern (decorated class + static init).
export class GatewaykitPlugin {
  static options: GatewaykitPluginOptions;

  static init(options: GatewaykitPluginOptions): Type<GatewaykitPlugin> {
    if (!/^https?:\/\//.test(options.vendureHost))
      throw new Error('GatewaykitPlugin: vendureHost must be an http(s) URL');
    if (!options.storefrontOrderUrl.includes('{code}')) {
      throw new Error('GatewaykitPlugin: storefrontOrderUrl must contain {code}');
    }
    // Checked here, so a bad setting stops the start instead of every run.
    chargebackLookbackMs(options.reconcile?.chargebackLookbackDays, 'reconcile.chargebackLookbackDays');
    checkReconcileOptions(options.reconcile);
    GatewaykitPlugin.options = options;
    return GatewaykitPlugin;
  }
}
